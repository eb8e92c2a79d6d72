package hw

// This file reads what the OS says of the machine's CPU, and compares it
// with the machine a hardware file was fitted on.

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// CPUInfo is the host CPU as the OS describes it.
type CPUInfo struct {
	Model string `json:"model"` // "Intel(R) Xeon(R) Processor"
	// ID is the vendor, family, model and stepping ("AuthenticAMD 26/2/1"):
	// it tells apart CPUs a hypervisor gives one generic name.
	ID      string `json:"id,omitempty"`
	Cores   int    `json:"cores"`   // logical CPUs
	L1dKB   int    `json:"l1d_kb"`  // per core
	L2KB    int    `json:"l2_kb"`   // per core
	L3KB    int    `json:"l3_kb"`   // shared
	Flags   string `json:"flags"`   // vector extensions: avx2 avx512f amx_tile ...
	OS      string `json:"os"`      // GOOS/GOARCH
	Virtual bool   `json:"virtual"` // a hypervisor is reported
}

// HostCPU reads /proc/cpuinfo and /sys/devices/system/cpu (Linux); other
// systems report the core count and OS only. Where the cache folders are
// missing (some virtual machines), /proc/cpuinfo's "cache size" is taken
// as the last-level cache a core sees: L2 on AMD, L3 on Intel.
func HostCPU() CPUInfo {
	c := CPUInfo{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	var vendor, family, model, stepping string
	cacheKB := 0
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.TrimSpace(line) == "" && c.Model != "" {
				break // the first processor's block says it all; the kernel computes each further block (its clock) on read
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch {
			case (k == "model name" || k == "Processor" || k == "cpu model") && c.Model == "":
				c.Model = v
			case k == "flags" && c.Flags == "":
				c.Flags = vectorFlags(v)
				c.Virtual = strings.Contains(" "+v+" ", " hypervisor ")
			case k == "vendor_id" && vendor == "":
				vendor = v
			case k == "cpu family" && family == "":
				family = v
			case k == "model" && model == "":
				model = v
			case k == "stepping" && stepping == "":
				stepping = v
			case k == "cache size" && cacheKB == 0:
				cacheKB = parseKB(strings.ReplaceAll(strings.TrimSuffix(v, "B"), " ", ""))
			}
		}
		f.Close()
	}
	for i := 0; i < 8; i++ {
		dir := "/sys/devices/system/cpu/cpu0/cache/index" + strconv.Itoa(i) + "/"
		lvl, err1 := os.ReadFile(dir + "level")
		typ, err2 := os.ReadFile(dir + "type")
		size, err3 := os.ReadFile(dir + "size")
		if err1 != nil || err2 != nil || err3 != nil {
			break
		}
		kb := parseKB(strings.TrimSpace(string(size)))
		switch strings.TrimSpace(string(lvl)) + strings.TrimSpace(string(typ)) {
		case "1Data":
			c.L1dKB = kb
		case "2Unified", "2Data":
			c.L2KB = kb
		case "3Unified":
			c.L3KB = kb
		}
	}
	if family != "" {
		c.ID = strings.TrimSpace(fmt.Sprintf("%s %s/%s/%s", vendor, family, model, stepping))
	}
	if c.L2KB == 0 && c.L3KB == 0 && cacheKB > 0 {
		if vendor == "AuthenticAMD" {
			c.L2KB = cacheKB
		} else {
			c.L3KB = cacheKB
		}
	}
	return c
}

// String is one line naming the CPU: model, ID, logical CPUs, caches.
func (c CPUInfo) String() string {
	s := c.Model
	if s == "" {
		s = "unknown CPU"
	}
	if c.ID != "" {
		s += " (" + c.ID + ")"
	}
	return fmt.Sprintf("%s, %d logical CPUs, L2 %d KiB, L3 %d KiB", s, c.Cores, c.L2KB, c.L3KB)
}

// HostMismatch returns a warning when h is a CPU fitted on a machine other
// than cpu, or says nothing of where it was fitted ("" when it matches or
// h is not a CPU). Machines match on model name, family/model/stepping
// (when both are known) and logical CPU count.
func (h *Hardware) HostMismatch(cpu CPUInfo) string {
	if h == nil || h.Kind != "cpu" {
		return ""
	}
	if h.Fitted == nil {
		return fmt.Sprintf("hardware %s does not say which machine it was fitted on: its predictions are for no machine in particular; run wolong calibrate --host to fit this one (%s)", h.Name, cpu.Model)
	}
	f := h.Fitted
	if cpu.Model == "" || f.describes(cpu) {
		return ""
	}
	this := CPUInfo{Model: f.CPU, ID: f.CPUID, Cores: f.Cores}
	return fmt.Sprintf("hardware %s was fitted on %s (%d logical CPUs); this machine is %s (%d): its predictions are for that machine; run wolong calibrate --host to fit this one",
		h.Name, cpuName(this), f.Cores, cpuName(cpu), cpu.Cores)
}

// describes reports whether f's machine is cpu: the same model name,
// family/model/stepping (when both are known) and logical CPU count.
func (f *Fitted) describes(cpu CPUInfo) bool {
	return cpu.Model != "" && strings.EqualFold(strings.TrimSpace(cpu.Model), strings.TrimSpace(f.CPU)) && cpu.Cores == f.Cores &&
		(cpu.ID == "" || f.CPUID == "" || cpu.ID == f.CPUID)
}

func cpuName(c CPUInfo) string {
	if c.ID != "" {
		return c.Model + " (" + c.ID + ")"
	}
	return c.Model
}

// vectorFlags keeps the flags that decide a CPU library's kernels.
func vectorFlags(all string) string {
	var keep []string
	for _, f := range strings.Fields(all) {
		switch f {
		case "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8", "neon", "asimd", "sve":
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " ")
}

// parseKB reads "2048K", "4M" or "512".
func parseKB(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		s = strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		s, mult = strings.TrimSuffix(s, "M"), 1024
	default:
		v, _ := strconv.Atoi(s)
		return v / 1024
	}
	v, _ := strconv.Atoi(s)
	return v * mult
}

// GEMMLanes is the float32 lanes of a CPU GEMM kernel's column block
// given the CPU's vector flags (CPUInfo.Flags): 16 with AVX-512, 8 with
// AVX or AVX2, 4 with NEON; 0 when none is known (hw gemm_col_lanes).
func GEMMLanes(flags string) float64 {
	has := map[string]bool{}
	for _, f := range strings.Fields(flags) {
		has[f] = true
	}
	switch {
	case has["avx512f"]:
		return 16
	case has["avx2"], has["avx"]:
		return 8
	case has["neon"], has["asimd"]:
		return 4
	}
	return 0
}
