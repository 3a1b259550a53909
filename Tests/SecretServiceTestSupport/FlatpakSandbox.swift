// SPDX-License-Identifier: Apache-2.0
// A program run as a Flatpak application would be: in a bwrap sandbox whose root holds a /.flatpak-info.

import Foundation

/// What cofferd sees of a Flatpak application, made with `bwrap` rather than Flatpak itself: a sandbox with the
/// system's `/usr` and `/etc` read-only, the test bus's directory (its socket and scripts) shared, and a
/// `/.flatpak-info` naming the application, which is where cofferd reads the app id (`/proc/PID/root`).
public enum FlatpakSandbox {
    /// The `bwrap` command line that runs `program` with `arguments` as the Flatpak application `appID`.
    /// - Parameter bus: the test bus, whose directory the sandbox shares and where the info file is written.
    public static func command(appID: String, in bus: TestBus, running program: [String]) throws -> [String] {
        let info = bus.directory.appendingPathComponent("\(appID).flatpak-info")
        try "[Application]\nname=\(appID)\n\n[Instance]\ninstance-id=1\n"
            .write(to: info, atomically: true, encoding: .utf8)
        let directory = bus.directory.path
        return ["/usr/bin/bwrap",
                "--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
                "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc",
                "--proc", "/proc", "--dev", "/dev", "--bind", directory, directory,
                "--ro-bind", info.path, "/.flatpak-info"] + program
    }
}
