// SPDX-License-Identifier: Apache-2.0
// What a pinentry inherits from the daemon: only its socket and stderr, and only the listed variables.

import Foundation
import Glibc
@testable import SecretServiceDaemon
import Testing

@Suite("Pinentry child process")
struct ChildProcessTests {
    /// Starts `executable` the way a pinentry is started and returns everything it writes to its socket.
    private func output(of executable: String, _ arguments: [String] = [], environment: [String: String]) throws
        -> [String] {
        let child = try ChildProcess.spawn(executable: executable, arguments: arguments, environment: environment)
        defer {
            close(child.socket)
            child.reap(terminate: false, grace: .seconds(10))
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(child.socket, &buffer, buffer.count)
            if count > 0 {
                bytes += buffer[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break  // end of file: the child exited
            }
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("descriptors the daemon holds without close-on-exec do not reach the child")
    func descriptors() throws {
        // Well above the child's own first free descriptor, and without FD_CLOEXEC, as one inherited from a
        // careless parent would be.
        let null = open("/dev/null", O_RDONLY)
        try #require(null >= 0)
        let stray = fcntl(null, F_DUPFD, 100)
        close(null)
        try #require(stray >= 100)
        defer { close(stray) }
        #expect(fcntl(stray, F_GETFD) & FD_CLOEXEC == 0)

        let listed = try output(of: "/bin/ls", ["/proc/self/fd"], environment: ["PATH": "/usr/bin:/bin"])
        let descriptors = listed.compactMap { Int32($0) }
        #expect(descriptors.count == listed.count, "\(listed)")
        #expect(Set(descriptors).isSuperset(of: [0, 1, 2]))
        #expect(!descriptors.contains(stray), "\(descriptors)")
        // Beyond 0–2, only the one ls opens to read the directory.
        #expect(descriptors.filter { $0 > 2 }.count <= 1, "\(descriptors)")
    }

    @Test("the child gets only the listed variables of the daemon's environment")
    func environment() throws {
        let daemon = ChildProcess.currentEnvironment()
        let unlisted = try #require(daemon.keys.first { !PinentryPrompter.Configuration.isInherited($0) },
                                    "the test process has only listed variables; nothing to check")
        let configuration = PinentryPrompter.Configuration()
        let received = try output(of: "/usr/bin/env", environment: configuration.environment)
        let names = Set(received.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        #expect(names == Set(configuration.environment.keys))
        #expect(!names.contains(unlisted))
        #expect(names.allSatisfy(PinentryPrompter.Configuration.isInherited), "\(names.sorted())")
    }

    @Test("display, terminal, locale, HOME and PATH are kept; anything else is dropped")
    func allowList() {
        let environment = [
            "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus",
            "TERM": "xterm", "GPG_TTY": "/dev/pts/1", "LANG": "de_DE.UTF-8", "LC_MESSAGES": "C", "HOME": "/home/u",
            "PATH": "/usr/bin", "AWS_SECRET_ACCESS_KEY": "k", "LD_PRELOAD": "/tmp/x.so", "SSH_AUTH_SOCK": "/tmp/a",
            "GITHUB_TOKEN": "t",
        ]
        let kept = PinentryPrompter.Configuration.inherited(from: environment)
        #expect(Set(kept.keys) == ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "TERM", "GPG_TTY",
                                   "LANG", "LC_MESSAGES", "HOME", "PATH"])
        #expect(kept["LANG"] == "de_DE.UTF-8")
    }
}
