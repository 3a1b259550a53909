// SPDX-License-Identifier: Apache-2.0
// Recognises the xdg-desktop-portal frontend among the daemon's callers.

import DBusWire
import Glibc

/// Whether a caller is xdg-desktop-portal. Its app ids come from the caller's sandbox (`/.flatpak-info`), which the
/// application cannot write; the same app id in a call from any other program is only a claim.
///
/// A caller passes when both hold: its connection owns `org.freedesktop.portal.Desktop`, and the process the bus
/// names for it runs one of ``executables``. The name alone is not enough (on a session bus any program may take a
/// name nobody holds); the executable alone is not either (a process id outlives the connection it was read for
/// only if the process lives, and the name ties the check to the live frontend).
struct PortalFrontend {
    let sender: any MessageSender

    /// Where distributions install the frontend: Debian, Ubuntu and Fedora in libexec, Arch in lib.
    static let executables: Set<String> = ["/usr/libexec/xdg-desktop-portal", "/usr/lib/xdg-desktop-portal"]
    static let frontendName: BusName = "org.freedesktop.portal.Desktop"

    func isFrontend(_ caller: BusName) async -> Bool {
        guard let owner = try? await askBus("GetNameOwner", Self.frontendName.rawValue)?.string,
              owner == caller.rawValue,
              let pid = try? await askBus("GetConnectionUnixProcessID", caller.rawValue)?.uint32,
              let path = ProcessExecutable.path(of: pid_t(bitPattern: pid))
        else { return false }
        return Self.executables.contains(path)
    }

    /// One `org.freedesktop.DBus` method with a string argument; the first value of its reply. Fails closed: a
    /// sender with no bus (router tests) makes every caller a stranger.
    private func askBus(_ member: MemberName, _ argument: String) async throws -> DBusValue? {
        let message = Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                         interface: "org.freedesktop.DBus", member: member,
                                         body: [.string(argument)])
        return try await sender.call(message, timeout: .seconds(5)).body.first
    }
}

/// Reads which program a process runs, from `/proc`.
enum ProcessExecutable {
    /// The executable of `pid`, or `nil` when it cannot be read or the process changed while it was read.
    ///
    /// The process's start time is read before and after the executable: a process that exited and whose id was
    /// reused in between has another start time, so the answer belongs to the process that was asked about. A
    /// replaced or deleted file reads as "PATH (deleted)", which matches no trusted path.
    static func path(of pid: pid_t) -> String? {
        guard pid > 0, let before = startTime(of: pid) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard length > 0, startTime(of: pid) == before else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Field 22 of `/proc/PID/stat` (clock ticks since boot), counted after the command name, which may itself hold
    /// spaces and parentheses.
    static func startTime(of pid: pid_t) -> UInt64? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &bytes, bytes.count)
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ") ": field 3 (state) is the first; the start time is field 22.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}
