package hostcal

// This file reads what the OS says of the machine's CPU.

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// CPUInfo is the host CPU as the OS describes it.
type CPUInfo struct {
	Model   string `json:"model"`   // "Intel(R) Xeon(R) Processor"
	Cores   int    `json:"cores"`   // logical CPUs
	L1dKB   int    `json:"l1d_kb"`  // per core
	L2KB    int    `json:"l2_kb"`   // per core
	L3KB    int    `json:"l3_kb"`   // shared
	Flags   string `json:"flags"`   // vector extensions: avx2 avx512f amx_tile ...
	OS      string `json:"os"`      // GOOS/GOARCH
	Virtual bool   `json:"virtual"` // a hypervisor is reported
}

// HostCPU reads /proc/cpuinfo and /sys/devices/system/cpu (Linux); other
// systems report the core count and OS only.
func HostCPU() CPUInfo {
	c := CPUInfo{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
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
	return c
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
