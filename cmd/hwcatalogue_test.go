package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestHwListIsWhatHwAccepts: every name 'hw list' prints is accepted by
// --hw in profile, optimize and explain, and every GPU of it by
// profile --cluster, optimize --cluster and the LLM planner; a CPU is
// refused with --cluster as not a GPU; a name not listed is refused
// everywhere (usage error). The list and the flags read one catalogue.
func TestHwListIsWhatHwAccepts(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"hw", "list", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("hw list: exit %d: %s", code, errb.String())
	}
	var list []struct{ Name, Kind string }
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list) == 0 {
		t.Fatalf("hw list json: %v (%d presets)", err, len(list))
	}
	type check struct {
		name string
		gpu  bool // only GPUs are accepted
		run  func(hw string) (int, error)
	}
	profile := func(args ...string) func(string) (int, error) {
		return func(hw string) (int, error) {
			_, code, err := parseArgv(NewCmdProfile, append(args, "--hw", hw))
			return code, err
		}
	}
	optimize := func(args ...string) func(string) (int, error) {
		return func(hw string) (int, error) {
			_, code, err := parseArgv(NewCmdOptimize, append(args, "--hw", hw))
			return code, err
		}
	}
	checks := []check{
		{"profile", false, profile("m.onnx")},
		{"optimize", false, optimize("m.onnx")},
		{"explain", false, func(hw string) (int, error) {
			_, code, err := parseArgv(NewCmdExplain, []string{"m.onnx", "--hw", hw})
			return code, err
		}},
		{"profile --cluster", true, profile("m.onnx", "--cluster", "2x8")},
		{"optimize --cluster", true, optimize("m.onnx", "--cluster", "2x8")},
		{"profile --llm", true, profile("--llm", "gpt3-125m", "--cluster", "2x8")},
		{"optimize --llm", true, optimize("--llm", "gpt3-125m", "--cluster", "2x8")},
	}
	for _, ck := range checks {
		for _, p := range list {
			code, err := ck.run(p.Name)
			switch {
			case p.Kind == "gpu" || !ck.gpu:
				if code != 0 {
					t.Errorf("%s --hw %s: exit %d (%v); hw list lists it", ck.name, p.Name, code, err)
				}
			case code != 2 || !strings.Contains(err.Error(), "not a GPU"):
				t.Errorf("%s --hw %s (a %s): exit %d (%v), want a usage error saying it is not a GPU", ck.name, p.Name, p.Kind, code, err)
			}
		}
		if code, err := ck.run("gtx1080"); code != 2 || !strings.Contains(err.Error(), "no preset") {
			t.Errorf("%s --hw gtx1080: exit %d (%v), want a usage error naming the presets", ck.name, code, err)
		}
	}
}
