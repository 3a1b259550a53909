// SPDX-License-Identifier: Apache-2.0
// One Debian syncthing, configured by a test to carry one folder to one peer over 127.0.0.1 and nothing else.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import SecretServiceTestSupport

/// A syncthing process of a test's own: its home (keys, config, database, log) under a scratch directory, its GUI
/// and REST API on a loopback port with a random API key, and a listening port on 127.0.0.1. Its configuration turns
/// off everything that would reach beyond the machine (global and local discovery, relays, NAT traversal, usage
/// reports, crash reports, upgrades), so it only ever talks to the peer named by ``configure(peer:folder:)``.
final class SyncthingInstance: @unchecked Sendable {
    // @unchecked: `process` is set once by `start()` before the instance is shared, and only read afterwards.
    static let executable = "/usr/bin/syncthing"
    /// The folder id both instances share.
    static let folderID = "coffer"

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    let home: String
    let deviceID: String
    let apiKey: String
    let guiPort: UInt16
    let listenPort: UInt16
    private var process: Process?
    /// Ends when the process has exited and been reaped (its termination handler).
    private let exits: AsyncStream<Void>
    private let exitSink: AsyncStream<Void>.Continuation

    var logPath: String { home + "/syncthing.log" }
    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Makes the home with a new key pair (`syncthing generate`) and chooses the ports.
    /// - Throws: ``Failure`` when syncthing is not installed: CI installs it (the Makefile's TEST_PACKAGES), so a
    ///   machine without it must not pass this test by skipping it.
    init(home: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw Failure("\(Self.executable) is missing: install the Debian package syncthing (make setup-test)")
        }
        self.home = home
        (exits, exitSink) = AsyncStream.makeStream()
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let generated = try await Self.run(["generate", "--home", home, "--no-default-folder", "--skip-port-probing"],
                                           home: home)
        guard generated.status == 0, let line = generated.output.split(separator: "\n").first(where: {
            $0.contains("Device ID: ")
        }) else {
            throw Failure("syncthing generate failed (\(generated.status)): \(generated.output)")
        }
        deviceID = String(line.split(separator: " ").last ?? "")
        apiKey = UUID().uuidString
        guiPort = try Self.freePort()
        listenPort = try Self.freePort()
    }

    /// Writes the whole configuration: this device, `peer` at its static address, and `folder` shared with it,
    /// watched (inotify) with a one-second delay and rescanned every 10 s in case a watch event is lost.
    func configure(peer: SyncthingInstance, folder: String) throws {
        let config = """
            <configuration version="36">
                <folder id="\(Self.folderID)" label="coffer" path="\(folder)" type="sendreceive" rescanIntervalS="10" \
            fsWatcherEnabled="true" fsWatcherDelayS="1">
                    <device id="\(deviceID)"></device>
                    <device id="\(peer.deviceID)"></device>
                </folder>
                <device id="\(deviceID)" name="self"><address>dynamic</address></device>
                <device id="\(peer.deviceID)" name="peer"><address>tcp://127.0.0.1:\(peer.listenPort)</address></device>
                <gui enabled="true" tls="false"><address>127.0.0.1:\(guiPort)</address><apikey>\(apiKey)</apikey></gui>
                <options>
                    <listenAddress>tcp://127.0.0.1:\(listenPort)</listenAddress>
                    <globalAnnounceEnabled>false</globalAnnounceEnabled>
                    <localAnnounceEnabled>false</localAnnounceEnabled>
                    <relaysEnabled>false</relaysEnabled>
                    <natEnabled>false</natEnabled>
                    <startBrowser>false</startBrowser>
                    <urAccepted>-1</urAccepted>
                    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                    <crashReportingEnabled>false</crashReportingEnabled>
                    <reconnectionIntervalS>2</reconnectionIntervalS>
                </options>
            </configuration>
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: home + "/config.xml"))
    }

    /// Starts `syncthing serve` and returns once its REST API listens (a line in its log, waited for as an event).
    func start() async throws {
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["serve", "--home", home, "--no-browser", "--no-restart", "--no-upgrade"]
        process.environment = Self.environment(home: home)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardError = process.standardOutput
        let exited = exitSink
        process.terminationHandler = { _ in exited.finish() }
        try process.run()
        self.process = process
        let events = try FileEvents(logPath, mask: UInt32(IN_MODIFY))
        try await events.wait(until: { [self] in log().contains("API listening on") || !process.isRunning },
                              limit: .seconds(30), what: "syncthing's API")
        guard process.isRunning else { throw Failure("syncthing exited at start:\n\(log())") }
    }

    /// Ends the process (SIGKILL: nothing it holds matters once the test is over) and waits for its exit.
    func kill() async {
        guard let process else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        let exits = self.exits
        _ = try? await withDeadline(.seconds(20), waitingFor: "syncthing's exit") {
            for await _ in exits {}
        }
    }

    /// Returns once `condition` holds, checking it now and after each batch of syncthing's events (the REST API's
    /// long poll, which answers as soon as something happens, or after 5 s with nothing).
    func wait(until condition: @escaping @Sendable () throws -> Bool, limit: Duration = .seconds(40),
              what: String) async throws {
        try await withDeadline(limit, waitingFor: what) { [self] in
            var since = 0
            while try !condition() {
                since = try await events(since: since)
            }
        }
    }

    /// The id of the last event after `since`, blocking until there is one or 5 s pass.
    private func events(since: Int) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(guiPort)/rest/events?since=\(since)&timeout=5")!)
        request.setValue(apiKey, forHTTPHeaderField: "X-API-Key")
        request.timeoutInterval = 30
        let (body, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200,
              let list = try JSONSerialization.jsonObject(with: body) as? [[String: Any]] else {
            throw Failure("syncthing's events: \(response) \(String(decoding: body, as: UTF8.self))")
        }
        return list.compactMap { $0["id"] as? Int }.max() ?? since
    }

    /// What syncthing runs with: its home as HOME too, so nothing is read from or written to the real one.
    /// STMONITORED tells it a monitor already runs it, so it serves in the process started here (the one that is
    /// killed) instead of forking a child that could outlive it.
    private static func environment(home: String) -> [String: String] {
        ["HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "STNODEFAULTFOLDER": "1", "STNOUPGRADE": "1",
         "STMONITORED": "1"]
    }

    private static func run(_ arguments: [String], home: String) async throws -> (status: Int32, output: String) {
        let output = home + "/generate.log"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment(home: home)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = process.standardOutput
        let status = try await process.runToEnd()
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice for port 0).
    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw Failure("bind: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }
}
