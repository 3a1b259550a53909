// SPDX-License-Identifier: Apache-2.0
// The Debian package `make deb` builds, and the tree it was made from: binaries that carry the Swift runtime, the
// files and Depends dpkg-deb reports, binaries that run with the toolchain out of sight, and apt's acceptance.
// `make test-package` builds both (a release build) and runs this suite with COFFER_PACKAGE_DEB (the .deb) and
// COFFER_PACKAGE_ROOT (the staging tree); without them, as in `make test`, the suite does not run.

import Foundation
import Testing

@Suite("the Debian package", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["COFFER_PACKAGE_DEB"] != nil, "run by `make test-package`"))
struct PackageTests {
    let deb = ProcessInfo.processInfo.environment["COFFER_PACKAGE_DEB"] ?? ""
    let root = ProcessInfo.processInfo.environment["COFFER_PACKAGE_ROOT"] ?? ""

    /// The files every package must hold, relative to its root.
    static let expectedFiles = [
        "usr/bin/cofferd", "usr/bin/coffer",
        "usr/share/man/man1/cofferd.1", "usr/share/man/man1/coffer.1",
        "usr/share/dbus-1/services/org.freedesktop.secrets.service",
        "usr/share/xdg-desktop-portal/portals/coffer.portal",
        "usr/lib/systemd/user/cofferd.service",
        "usr/share/bash-completion/completions/coffer", "usr/share/zsh/site-functions/_coffer",
        "usr/share/fish/vendor_completions.d/coffer.fish",
        "usr/share/doc/coffer/README.md", "usr/share/doc/coffer/INSTALL.md", "usr/share/doc/coffer/ARCHIVE.md",
    ]

    /// The programs and the PAM module, relative to the root: what the dynamic loader opens.
    var loadedFiles: [String] {
        let module = (try? FileManager.default.subpathsOfDirectory(atPath: root))?.filter {
            $0.hasSuffix("/security/pam_coffer.so")
        } ?? []
        return ["usr/bin/cofferd", "usr/bin/coffer"] + module
    }

    @Test func installedBinariesLoadNoSwiftLibrary() async throws {
        #expect(loadedFiles.count == 3, "the PAM module is not in the package: \(loadedFiles)")
        for binary in loadedFiles {
            let ldd = try await Command.run("/usr/bin/ldd", [root + "/" + binary])
            #expect(ldd.status == 0, "\(ldd.stderr)")
            let libraries = ldd.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(!libraries.isEmpty)
            for library in libraries {
                #expect(!library.contains("libswift") && !library.contains("libFoundation")
                        && !library.contains("libdispatch") && !library.contains("libBlocksRuntime")
                        && !library.contains("not found"), "\(binary): \(library)")
            }
        }
    }

    /// The C++ runtime the Swift runtime calls is linked in too (Makefile, STATIC_CXX_DIR): loading libstdc++.so
    /// would cost every start its relocated tables and data.
    @Test func installedProgramsLoadNoCxxRuntime() async throws {
        for binary in ["usr/bin/cofferd", "usr/bin/coffer"] {
            let ldd = try await Command.run("/usr/bin/ldd", [root + "/" + binary])
            #expect(ldd.status == 0, "\(ldd.stderr)")
            #expect(!ldd.text.contains("libstdc++"), "\(binary) loads the C++ runtime:\n\(ldd.text)")
        }
    }

    /// Each shared library the binaries load comes from a package in Depends, or from one those depend on.
    @Test func dependsCoversEveryLoadedLibrary() async throws {
        let info = try await Command.run("/usr/bin/dpkg-deb", ["--field", deb, "Depends"])
        let depends = Self.packageNames(info.text)
        for required in ["libdbus-1-3", "libgcrypt20", "pinentry-curses", "pinentry"] {
            #expect(depends.contains(required), "\(info.text)")
        }
        let hasPAMModule = try await Command.run("/usr/bin/dpkg-deb", ["--contents", deb]).text.contains("pam_coffer.so")
        #expect(depends.contains("libpam0g") == hasPAMModule, "\(info.text)")

        var closure = depends, queue = Array(depends)
        while let package = queue.popLast() {
            let fields = try await Command.run("/usr/bin/dpkg-query", ["-W", "-f=${Pre-Depends}, ${Depends}", package])
            for next in Self.packageNames(fields.text) where closure.insert(next).inserted { queue.append(next) }
        }
        for binary in loadedFiles {
            let ldd = try await Command.run("/usr/bin/ldd", [root + "/" + binary])
            for path in ldd.text.split(separator: "\n").compactMap(Self.resolvedPath) {
                let owner = try await Command.run("/usr/bin/dpkg-query", ["-S", path])
                let candidates = [path, URL(fileURLWithPath: path).resolvingSymlinksInPath().path,
                                  path.replacingOccurrences(of: "/usr/lib/", with: "/lib/"),
                                  path.replacingOccurrences(of: "/lib/", with: "/usr/lib/")]
                var package: String?
                for candidate in candidates where package == nil {
                    let query = candidate == path ? owner : try await Command.run("/usr/bin/dpkg-query", ["-S", candidate])
                    if query.status == 0 { package = query.text.split(separator: ":").first.map(String.init) }
                }
                let name = try #require(package, "no package owns \(path)")
                #expect(closure.contains(name), "\(binary) loads \(path) from \(name), which Depends does not bring")
            }
        }
    }

    @Test func dpkgDebShowsTheControlFieldsAndFiles() async throws {
        let info = try await Command.run("/usr/bin/dpkg-deb", ["--info", deb])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.text.contains(" Package: coffer\n"))
        #expect(URL(fileURLWithPath: deb).lastPathComponent.hasPrefix("coffer_"))
        let contents = try await Command.run("/usr/bin/dpkg-deb", ["--contents", deb])
        let listed = Set(contents.text.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ").last, !path.hasSuffix("/") else { return nil }
            return String(path.dropFirst(2))  // "./usr/bin/coffer"
        })
        for file in Self.expectedFiles { #expect(listed.contains(file), "\(file) is not in the package") }
        #expect(listed.allSatisfy { $0.hasPrefix("usr/") || $0.hasPrefix("lib/") }, "\(listed.sorted())")
        #expect(contents.text.contains("-rwxr-xr-x root/root"))

        // The activation file names the unit the package installs, and both run the installed cofferd.
        let activation = try String(contentsOfFile: root + "/usr/share/dbus-1/services/org.freedesktop.secrets.service",
                                    encoding: .utf8)
        let lines = activation.split(separator: "\n")
        let unit = try #require(lines.first { $0.hasPrefix("SystemdService=") }?.dropFirst("SystemdService=".count))
        #expect(listed.contains("usr/lib/systemd/user/\(unit)"))
        #expect(lines.contains("Exec=/usr/bin/cofferd --foreground"))
        let unitText = try String(contentsOfFile: root + "/usr/lib/systemd/user/\(unit)", encoding: .utf8)
        #expect(unitText.contains("ExecStart=/usr/bin/cofferd "))
        #expect(!unitText.contains("@bindir@"))

        // The PAM module starts the installed cofferd when none runs at login.
        for module in loadedFiles where module.hasSuffix(".so") {
            let bytes = try #require(FileManager.default.contents(atPath: root + "/" + module))
            #expect(bytes.range(of: Data("/usr/bin/cofferd\0".utf8)) != nil, "\(module) starts another cofferd")
        }
    }

    /// The staged binaries with the Swift toolchain hidden (an empty tmpfs over it), as on a machine without it.
    @Test func stagedBinariesRunWithoutTheToolchain() async throws {
        let toolchain = try await Command.run("/bin/sh", ["-c", "readlink -f \"$(command -v swift)\""]).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!toolchain.isEmpty)
        // /opt/swift/usr/bin/swift-driver: hide /opt/swift/usr, which holds every Swift runtime library.
        let hidden = URL(fileURLWithPath: toolchain).deletingLastPathComponent().deletingLastPathComponent().path
        let sandbox = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", hidden, "--"]
        let seen = try await Command.run("/usr/bin/bwrap", sandbox + ["/bin/ls", hidden])
        #expect(seen.status == 0 && seen.text.isEmpty, "the toolchain is still visible: \(seen.text)")
        for binary in ["cofferd", "coffer"] {
            let version = try await Command.run("/usr/bin/bwrap", sandbox + [root + "/usr/bin/" + binary, "--version"])
            #expect(version.status == 0, "\(binary): \(version.stderr)")
            #expect(version.text.split(separator: ".").count == 3, "\(binary) --version: \(version.text)")
        }
    }

    /// apt resolves the package's dependencies from the archive (a dry run: nothing is installed).
    @Test func aptAcceptsThePackage() async throws {
        let apt = try await Command.run("/usr/bin/apt-get", ["install", "--simulate", "--no-install-recommends", deb])
        #expect(apt.status == 0, "\(apt.text)\(apt.stderr)")
        #expect(apt.text.contains("Inst coffer ") || apt.text.contains("coffer is already the newest version"),
                "\(apt.text)")
    }

    /// `apt-get install ./coffer_*.deb` for real, on a copy of this machine with the Swift toolchain deleted: an
    /// overlay of the root file system in a private mount namespace, so nothing reaches the machine itself. The
    /// installed binaries run, the activation file is coffer's (gnome-keyring's, when installed, diverted beside it),
    /// and removing the package gives gnome-keyring's file back.
    @Test func aptInstallsAndRemovesItWithoutTheToolchain() async throws {
        let script = #"""
            set -e
            scratch="$2"
            mount -t tmpfs coffer-package "$scratch"
            mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
            mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
            mount --rbind /dev "$scratch/root/dev"
            mount -t proc proc "$scratch/root/proc"
            cp "$1" "$scratch/root/coffer.deb"
            swift="$(readlink -f "$(command -v swift)")"
            chroot "$scratch/root" /bin/sh -ec '
                cd /
                rm -rf "$1"
                services=/usr/share/dbus-1/services/org.freedesktop.secrets.service
                before="$(sed -n "s/^Exec=//p" "$services" 2>/dev/null || true)"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /coffer.deb >/tmp/apt.log 2>&1 ||
                    { cat /tmp/apt.log; exit 1; }
                echo "toolchain: $(ls "$1" 2>&1 | head -1)"
                echo "cofferd: $(/usr/bin/cofferd --version)"
                echo "coffer: $(/usr/bin/coffer --version)"
                echo "exec: $(sed -n "s/^Exec=//p" "$services")"
                echo "unit: $(sed -n "s/^ExecStart=//p" /usr/lib/systemd/user/cofferd.service)"
                echo "man: $(ls /usr/share/man/man1/cofferd.1*)"
                if [ -n "$before" ]; then echo "diverted: $(sed -n "s/^Exec=//p" "$services.distrib")"; fi
                DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq coffer >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
                echo "removed: $(ls /usr/bin/cofferd 2>&1 | grep -c "No such file")"
                echo "restored: $(sed -n "s/^Exec=//p" "$services" 2>/dev/null)|$before"
            ' sh "${swift%/bin/*}"
            """#
        // The overlay lives on a tmpfs mounted here, inside the namespace; only the empty directory is left outside.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-apt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try await Command.run("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c",
                                                              script, "sh", deb, scratch.path])
        #expect(run.status == 0, "\(run.text)\(run.stderr)")
        let lines = Dictionary(run.text.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }, uniquingKeysWith: { $1 })
        #expect(lines["toolchain"]?.contains("No such file") == true, "\(run.text)")
        #expect(lines["cofferd"]?.split(separator: ".").count == 3, "\(run.text)")
        #expect(lines["coffer"]?.split(separator: ".").count == 3, "\(run.text)")
        #expect(lines["exec"] == "/usr/bin/cofferd --foreground", "\(run.text)")
        #expect(lines["unit"]?.hasPrefix("/usr/bin/cofferd --foreground") == true, "\(run.text)")
        #expect(lines["man"]?.hasPrefix("/usr/share/man/man1/cofferd.1") == true, "\(run.text)")
        // gnome-keyring (a test package) ships an activation file of the same name.
        if FileManager.default.fileExists(atPath: "/usr/share/dbus-1/services/org.freedesktop.secrets.service") {
            #expect(lines["diverted"]?.contains("gnome-keyring") == true, "\(run.text)")
        }
        #expect(lines["removed"] == "1", "\(run.text)")
        let restored = try #require(lines["restored"]).split(separator: "|", omittingEmptySubsequences: false)
        #expect(restored.count == 2 && restored[0] == restored[1], "\(run.text)")
    }

    /// `make install PREFIX=$HOME/.local` (staged): the unit lands in a directory `systemd --user` searches for that
    /// home, the activation file where the session bus reads a user's own files, and each names the other.
    @Test func userInstallGoesWhereSystemdAndTheBusLook() async throws {
        let environment = ProcessInfo.processInfo.environment
        let stage = try #require(environment["COFFER_USER_INSTALL_ROOT"])
        let home = try #require(environment["COFFER_USER_INSTALL_HOME"])
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: runtime) }
        let paths = try await Command.run("/usr/bin/env", ["-i", "HOME=\(home)", "XDG_RUNTIME_DIR=\(runtime.path)",
                                                           "/usr/bin/systemd-analyze", "--user", "unit-paths"])
        #expect(paths.status == 0, "\(paths.stderr)")
        let searched = Set(paths.text.split(separator: "\n").map(String.init))

        let units = try FileManager.default.subpathsOfDirectory(atPath: stage).filter { $0.hasSuffix("/cofferd.service") }
        #expect(units.count == 1, "\(units)")
        let unitDirectory = "/" + (units.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent().relativePath } ?? "")
        #expect(searched.contains(unitDirectory), "\(unitDirectory) is not among systemd's user unit paths: \(paths.text)")
        #expect(unitDirectory.hasPrefix(home + "/"))

        let activation = try String(contentsOfFile: stage + home + "/.local/share/dbus-1/services/"
            + "org.freedesktop.secrets.service", encoding: .utf8).split(separator: "\n")
        #expect(activation.contains("Exec=\(home)/.local/bin/cofferd --foreground"), "\(activation)")
        #expect(activation.contains("SystemdService=cofferd.service"), "\(activation)")
        let unit = try String(contentsOfFile: stage + unitDirectory + "/cofferd.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(home)/.local/bin/cofferd "), "\(unit)")
        #expect(FileManager.default.isExecutableFile(atPath: stage + home + "/.local/bin/cofferd"))
        #expect(FileManager.default.fileExists(atPath: stage + home + "/.local/share/man/man1/cofferd.1"))
    }

    @Test func manualPagesPassMandocLint() async throws {
        for page in ["cofferd.1", "coffer.1"] {
            let lint = try await Command.run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning",
                                                                  root + "/usr/share/man/man1/" + page])
            #expect(lint.status == 0 && lint.text.isEmpty, "\(page): \(lint.text)")
        }
    }

    /// Package names in a Depends-style field ("a (>= 1), b | c:any"): every alternative counts.
    static func packageNames(_ field: String) -> Set<String> {
        Set(field.split(whereSeparator: { $0 == "," || $0 == "|" }).compactMap { item in
            item.split(whereSeparator: \.isWhitespace).first.map { String($0.split(separator: ":").first ?? $0) }
        }.filter { !$0.isEmpty })
    }

    /// The library path of an ldd line ("libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)"); the dynamic
    /// loader's own line counts too, the vDSO's does not.
    static func resolvedPath(_ line: Substring) -> String? {
        let words = line.split(separator: " ").map { $0.trimmingCharacters(in: .whitespaces) }
        if let arrow = words.firstIndex(of: "=>"), arrow + 1 < words.count, words[arrow + 1].hasPrefix("/") {
            return words[arrow + 1]
        }
        return words.first.flatMap { $0.hasPrefix("/") ? $0 : nil }
    }
}
