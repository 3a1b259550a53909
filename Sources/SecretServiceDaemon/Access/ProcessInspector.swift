// SPDX-License-Identifier: Apache-2.0
// Reads a process's application identity from /proc, guarded against the process id being reused meanwhile.

#if canImport(Glibc)
import Glibc
#endif

/// Why a process could not be identified.
struct IdentityError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Derives an ``AppIdentity`` from `/proc/PID`.
///
/// A pid names a process only while it lives; once it exits, the pid can be given to another one. The bus gives the
/// pid of the process that connected, so cofferd reads the process's start time before and after reading the
/// identity, and requires it not to be later than the moment the call arrived: a process started after the call was
/// sent cannot have sent it, and one whose start time changed during the reads is another process.
struct ProcessInspector {
    /// Where proc is mounted; tests may point elsewhere.
    var procRoot = "/proc"

    /// Programs whose identity is the script they run rather than themselves.
    static let interpreterPrefixes = ["python", "perl", "node", "nodejs", "ruby", "bash", "sh", "dash", "zsh", "ksh",
                                      "php", "lua", "tclsh", "gjs", "guile", "Rscript", "osh", "fish"]

    /// Identifies the process `pid` that sent a call received at `receivedAt` (boot-time clock ticks).
    ///
    /// With `processFD`, the pidfd the bus took of the connecting process (where the bus offers one), the reads are
    /// also pinned to that process: the pidfd must name `pid`, and the process must still be running after the
    /// reads. A pidfd never comes to name another process, so this also covers a pid reused within the clock tick
    /// that start times are counted in.
    func caller(pid: Int32, receivedAt: UInt64, processFD: Int32? = nil) throws(IdentityError) -> Caller {
        if let processFD {
            guard let named = processID(of: processFD), named == pid else {
                throw IdentityError("the bus's process descriptor does not name process \(pid)")
            }
        }
        let before = try startTime(pid)
        guard before <= receivedAt else { throw IdentityError("process \(pid) started after the call: pid reused") }
        let identity = try identity(pid)
        let commandLine = arguments(pid).joined(separator: " ")
        guard try startTime(pid) == before else { throw IdentityError("process \(pid) changed while it was read") }
        if let processFD, Self.hasExited(processFD) {
            throw IdentityError("process \(pid) exited while it was read")
        }
        return Caller(identity: identity, processID: pid, commandLine: commandLine)
    }

    /// The process a pidfd names, from the `Pid:` line of its `fdinfo` (-1 once the process has exited).
    func processID(of processFD: Int32) -> Int32? {
        guard let info = read("\(procRoot)/self/fdinfo/\(processFD)") else { return nil }
        for line in info.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Pid:".utf8)) {
            let value = line.dropFirst(4).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            return Int32(String(decoding: value, as: UTF8.self))
        }
        return nil
    }

    /// Whether the process of a pidfd has exited: a pidfd polls readable from then on.
    static func hasExited(_ processFD: Int32) -> Bool {
        var entry = pollfd(fd: processFD, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// The boot-time clock now, in the ticks `/proc/PID/stat` counts start times in.
    static func bootTicks() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let perSecond = UInt64(max(sysconf(Int32(_SC_CLK_TCK)), 1))
        return UInt64(now.tv_sec) * perSecond + UInt64(now.tv_nsec) * perSecond / 1_000_000_000
    }

    /// Field 22 of `/proc/PID/stat`: when the process started, in clock ticks since boot.
    func startTime(_ pid: Int32) throws(IdentityError) -> UInt64 {
        guard let stat = read("\(procRoot)/\(pid)/stat"), let close = stat.lastIndex(of: UInt8(ascii: ")")) else {
            throw IdentityError("process \(pid) is gone")
        }
        // The name in parentheses may hold spaces and parentheses itself; the fields after its last `)` start at
        // field 3, so the start time is the 20th of them.
        let fields = stat[stat.index(after: close)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let value = UInt64(String(decoding: fields[19], as: UTF8.self)) else {
            throw IdentityError("unreadable /proc/\(pid)/stat")
        }
        return value
    }

    /// The identity, in order of preference (see ``AppIdentity``).
    func identity(_ pid: Int32) throws(IdentityError) -> AppIdentity {
        if let info = read("\(procRoot)/\(pid)/root/.flatpak-info"), let app = Self.flatpakApp(in: info) {
            return AppIdentity(kind: .flatpak, name: app)
        }
        if let cgroup = read("\(procRoot)/\(pid)/cgroup") {
            if let snap = Self.snapName(in: cgroup) { return AppIdentity(kind: .snap, name: snap) }
            if let unit = Self.userService(in: cgroup) { return AppIdentity(kind: .systemd, name: unit) }
        }
        let exeLink = "\(procRoot)/\(pid)/exe"
        guard let path = Self.readLink(exeLink), let file = Self.fileID(exeLink) else {
            throw IdentityError("cannot read the executable of process \(pid)")
        }
        let executable = "\(path)@\(file)"
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard Self.isInterpreter(base), let script = script(pid) else {
            return AppIdentity(kind: .executable, name: executable)
        }
        return AppIdentity(kind: .script, name: "\(executable) \(script)")
    }

    static func isInterpreter(_ name: String) -> Bool {
        interpreterPrefixes.contains { prefix in
            name.hasPrefix(prefix) && name.dropFirst(prefix.count).allSatisfy { $0.isNumber || $0 == "." }
        }
    }

    /// The script an interpreter runs: its first argument that is not an option, made absolute against the process's
    /// working directory, with the file's device and inode when it can be read; `-m MODULE` and `-c` (code on the
    /// command line) name themselves.
    func script(_ pid: Int32) -> String? {
        var rest = arguments(pid).dropFirst()
        while let argument = rest.first {
            rest = rest.dropFirst()
            if argument == "-m" || argument == "-e" || argument == "-c" {
                return argument == "-m" ? "-m \(rest.first ?? "")" : argument
            }
            if argument == "--" { break }
            if argument.hasPrefix("-") { continue }
            var path = argument
            if !path.hasPrefix("/"), let cwd = Self.readLink("\(procRoot)/\(pid)/cwd") { path = cwd + "/" + path }
            return Self.fileID(path).map { "\(path)@\($0)" } ?? path
        }
        return rest.first
    }

    /// `/proc/PID/cmdline` split at its NUL bytes.
    func arguments(_ pid: Int32) -> [String] {
        guard let bytes = read("\(procRoot)/\(pid)/cmdline") else { return [] }
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `name=` of the `[Application]` group of a `.flatpak-info` file.
    static func flatpakApp(in bytes: [UInt8]) -> String? {
        var inApplication = false
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            if line.hasPrefix("[") { inApplication = line == "[Application]"; continue }
            if inApplication, line.hasPrefix("name=") {
                let name = line.dropFirst(5)
                return name.isEmpty ? nil : String(name)
            }
        }
        return nil
    }

    /// The snap a process belongs to: snapd puts each app in a cgroup named `snap.NAME.APP-….scope`.
    static func snapName(in cgroup: [UInt8]) -> String? {
        for component in cgroupLeaves(cgroup) where component.hasPrefix("snap.") {
            let parts = component.split(separator: ".")
            if parts.count >= 3, !parts[1].isEmpty { return String(parts[1]) }
        }
        return nil
    }

    /// Units that run many unrelated programs, so naming the unit would make them all one application.
    static let sharedUnits: Set<String> = ["dbus.service", "dbus-broker.service", "init.scope"]

    /// A systemd service of the user's manager (`…/user@UID.service/…/NAME.service`) the process runs in. Scopes
    /// (`session-N.scope`, `app-….scope` of desktop launches and terminals) hold whatever the user starts there, so
    /// they name no application: those processes are identified by their executable.
    static func userService(in cgroup: [UInt8]) -> String? {
        for line in String(decoding: cgroup, as: UTF8.self).split(whereSeparator: \.isNewline)
        where line.hasPrefix("0::") {
            let components = line.dropFirst(3).split(separator: "/").map(String.init)
            guard let manager = components.firstIndex(where: { $0.hasPrefix("user@") && $0.hasSuffix(".service") }),
                  let leaf = components.last, components.count > manager + 1,
                  leaf.hasSuffix(".service"), !sharedUnits.contains(leaf)
            else { return nil }
            return leaf
        }
        return nil
    }

    private static func cgroupLeaves(_ cgroup: [UInt8]) -> [String] {
        String(decoding: cgroup, as: UTF8.self).split(whereSeparator: \.isNewline).flatMap { line in
            line.split(separator: ":", maxSplits: 2).last.map { $0.split(separator: "/").map(String.init) } ?? []
        }
    }

    // MARK: - Files

    /// `DEV:INODE` of the file `path` names (following links, as `/proc/PID/exe` must be followed).
    static func fileID(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino)"
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A small file's bytes (proc files report no size, so they are read to the end); `nil` when unreadable.
    func read(_ path: String, limit: Int = 64 * 1024) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return bytes
    }
}
