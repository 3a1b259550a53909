// SPDX-License-Identifier: Apache-2.0
// Application identities read from /proc: executables, interpreters with their script, Flatpak, Snap, systemd.

import Foundation
@testable import SecretServiceDaemon
import Testing

@Suite("Process identities")
struct ProcessInspectorTests {
    let inspector = ProcessInspector()

    @Test("this test process is its executable, with device and inode")
    func executable() throws {
        let caller = try inspector.caller(pid: getpid(), receivedAt: ProcessInspector.bootTicks())
        #expect(caller.identity.kind == .executable)
        let path = try #require(ProcessInspector.readLink("/proc/self/exe"))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(caller.identity.name == "\(path)@\(info.st_dev):\(info.st_ino)")
        #expect(caller.identity.displayName == path)
        #expect(AppIdentity(caller.identity.description) == caller.identity)
        #expect(caller.processID == getpid())
    }

    @Test("a process that started after the call arrived cannot have sent it (a reused pid)")
    func startedAfterTheCall() throws {
        let start = try inspector.startTime(getpid())
        #expect(throws: IdentityError.self) {
            try inspector.caller(pid: getpid(), receivedAt: start - 1)
        }
    }

    /// `pidfd_open(2)`, looked up at run time: glibc has it from 2.36, but Swift's Glibc module does not show it.
    static func openProcessFD(_ pid: Int32) throws -> Int32 {
        typealias PidfdOpen = @convention(c) (Int32, UInt32) -> Int32
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open"), "no pidfd_open in libc")
        let fd = unsafeBitCast(symbol, to: PidfdOpen.self)(pid, 0)
        try #require(fd >= 0, "pidfd_open: errno \(errno)")
        return fd
    }

    @Test("with the bus's pidfd, the process must be the one it names, and still running once it has been read")
    func processDescriptor() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/cat")
        let input = Pipe()
        child.standardInput = input
        try child.run()
        let fd = try Self.openProcessFD(child.processIdentifier)
        defer { close(fd) }
        #expect(inspector.processID(of: fd) == child.processIdentifier)
        #expect(!ProcessInspector.hasExited(fd))
        let caller = try inspector.caller(pid: child.processIdentifier, receivedAt: ProcessInspector.bootTicks(),
                                          processFD: fd)
        #expect(caller.processID == child.processIdentifier)
        // A descriptor of another process than the pid the bus gave is refused.
        #expect(throws: IdentityError.self) {
            try inspector.caller(pid: getpid(), receivedAt: ProcessInspector.bootTicks(), processFD: fd)
        }
        // Once the process has exited, its pid names nobody the call can be trusted to come from.
        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        #expect(ProcessInspector.hasExited(fd))
        #expect(throws: IdentityError.self) {
            try inspector.caller(pid: child.processIdentifier, receivedAt: ProcessInspector.bootTicks(), processFD: fd)
        }
    }

    @Test("an interpreter is identified with the script it runs, made absolute")
    func interpreterScript() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("waits.py")
        // Prints once it runs, then waits for its input to close.
        try Data("import sys\nprint('up', flush=True)\nsys.stdin.read()\n".utf8).write(to: script)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-u", "waits.py"]
        process.currentDirectoryURL = directory
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        _ = output.fileHandleForReading.availableData  // "up": the interpreter has read its arguments
        let identity = try inspector.identity(process.processIdentifier)
        #expect(identity.kind == .script)
        var info = stat()
        #expect(stat(script.path, &info) == 0)
        #expect(identity.name.hasSuffix(" \(script.path)@\(info.st_dev):\(info.st_ino)"), "\(identity)")
        #expect(identity.displayName.hasPrefix("\(script.path) (run by /usr/bin/python3"), "\(identity.displayName)")
    }

    @Test("interpreter names", arguments: [("python3", true), ("python3.11", true), ("bash", true), ("perl5.36", true),
                                           ("secret-tool", false), ("pythonista", false), ("shred", false)])
    func interpreters(name: String, expected: Bool) {
        #expect(ProcessInspector.isInterpreter(name) == expected)
    }

    @Test("a Flatpak app id comes from [Application] name=")
    func flatpak() {
        let info = "[Instance]\nname=not.this\n[Application]\nruntime=x\nname=org.example.App\n"
        #expect(ProcessInspector.flatpakApp(in: Array(info.utf8)) == "org.example.App")
        #expect(ProcessInspector.flatpakApp(in: Array("[Application]\nname=\n".utf8)) == nil)
    }

    @Test("a snap name and a user service come from the cgroup; scopes and shared units name nobody")
    func cgroups() {
        let snap = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-1234.scope\n"
        #expect(ProcessInspector.snapName(in: Array(snap.utf8)) == "firefox")
        let service = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/backup.service\n"
        #expect(ProcessInspector.userService(in: Array(service.utf8)) == "backup.service")
        let scope = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-term-42.scope\n"
        #expect(ProcessInspector.userService(in: Array(scope.utf8)) == nil)
        let bus = "0::/user.slice/user-1000.slice/user@1000.service/session.slice/dbus.service\n"
        #expect(ProcessInspector.userService(in: Array(bus.utf8)) == nil)
        let system = "0::/system.slice/cron.service\n"
        #expect(ProcessInspector.userService(in: Array(system.utf8)) == nil)
    }
}
