package safety

import "testing"

func TestClassify(t *testing.T) {
	cases := []struct {
		name string
		word field
		cwd  string
		want placeKind
		root bool
		path string
	}{
		{"root", literal("/"), "/home/u/proj", placeVital, false, "/"},
		{"top level", literal("/opt"), "/home/u/proj", placeVital, false, "/opt"},
		{"home", literal("/home/u"), "/home/u/proj", placeVital, false, "/home/u"},
		{"home child dir", literal("/home/u/Documents"), "/home/u/proj", placeVital, false, "/home/u/Documents"},
		{"file deeper in home", literal("/home/u/Documents/a.txt"), "/home/u/proj", placeOutside, false, "/home/u/Documents/a.txt"},
		{"other user's home", literal("/home/bob"), "/home/u/proj", placeVital, false, "/home/bob"},
		{"workspace root", literal("/home/u/proj"), "/", placeVital, true, "/home/u/proj"},
		{"dot in root", literal("."), "/home/u/proj", placeVital, true, "/home/u/proj"},
		{"inside", literal("src/main.go"), "/home/u/proj", placeWorkspace, false, "/home/u/proj/src/main.go"},
		{"root contents", withGlob("*"), "/home/u/proj", placeWorkspace, false, "/home/u/proj"},
		{"dotdot to parent", literal(".."), "/home/u/proj", placeVital, false, "/home/u"},
		{"dotdot to root", literal("../../../../.."), "/home/u/proj", placeVital, false, "/"},
		{"allowed", literal("/home/u/allowed/x"), "/home/u/proj", placeWorkspace, false, "/home/u/allowed/x"},
		{"temp file", literal("/tmp/x/y"), "/home/u/proj", placeTemp, false, "/tmp/x/y"},
		{"temp dir itself", literal("/tmp"), "/home/u/proj", placeOutside, false, "/tmp"},
		{"temp contents", withGlob("/tmp/*"), "/home/u/proj", placeOutside, false, "/tmp"},
		{"etc file", literal("/etc/hosts"), "/home/u/proj", placeSystem, false, "/etc/hosts"},
		{"usr local is not system", literal("/usr/local/bin/x"), "/home/u/proj", placeOutside, false, "/usr/local/bin/x"},
		{"device", literal("/dev/sda"), "/home/u/proj", placeDevice, false, "/dev/sda"},
		{"nvme partition", literal("/dev/nvme0n1p2"), "/home/u/proj", placeDevice, false, "/dev/nvme0n1p2"},
		{"dev null", literal("/dev/null"), "/home/u/proj", placeSink, false, "/dev/null"},
		{"fd", literal("/dev/fd/3"), "/home/u/proj", placeSink, false, "/dev/fd/3"},
		{"other dev", literal("/dev/shm/x"), "/home/u/proj", placeSystem, false, "/dev/shm/x"},
		{"relative, cwd unknown", literal("x"), "", placeUnknown, false, ""},
		{"computed", field{dynamic: true, lead: true, globAt: -1, expEnd: 0}, "/home/u/proj", placeUnknown, false, ""},
		{"computed dir, empty gives root", field{value: "/*", dynamic: true, lead: true, globAt: 1, expEnd: 0}, "/home/u/proj", placeVital, false, "/"},
		{"computed dir, empty gives file", field{value: "/out", dynamic: true, lead: true, globAt: -1, expEnd: 0}, "/home/u/proj", placeUnknown, false, "/out"},
		{"computed tail", field{value: "/etc/", dynamic: true, globAt: -1, expEnd: 5}, "/home/u/proj", placeVital, false, "/etc"},
		{"computed system path", field{value: "/usr/lib", dynamic: true, lead: true, globAt: -1, expEnd: 0}, "/home/u/proj", placeSystem, false, "/usr/lib"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAnalyzer(testOpts())
			sc := newScope("", &a.opts)
			sc.cwd = tc.cwd
			p := a.classify(sc, tc.word)
			if p.kind != tc.want || p.root != tc.root || tc.path != "" && p.path != tc.path {
				t.Errorf("classify(%q in %q) = kind %d root %v path %q; want kind %d root %v path %q",
					tc.word.value, tc.cwd, p.kind, p.root, p.path, tc.want, tc.root, tc.path)
			}
		})
	}
}

func TestClassifyAuthFiles(t *testing.T) {
	a := newAnalyzer(testOpts())
	sc := newScope("", &a.opts)
	for _, p := range []string{"/etc/passwd", "/etc/shadow", "/etc/sudoers", "/etc/sudoers.d/90-u", "/etc/pam.d/sshd"} {
		if got := a.classify(sc, literal(p)); !got.auth || got.kind != placeSystem {
			t.Errorf("classify(%s) = %+v, want a system auth file", p, got)
		}
	}
	if got := a.classify(sc, literal("/etc/hosts")); got.auth {
		t.Errorf("/etc/hosts classified as an auth file")
	}
}

func withGlob(s string) field {
	f := literal(s)
	for i := range s {
		if s[i] == '*' {
			f.globAt = i
			break
		}
	}
	return f
}
