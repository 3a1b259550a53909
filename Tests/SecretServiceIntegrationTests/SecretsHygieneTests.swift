// SPDX-License-Identifier: Apache-2.0
// No secret, password, label or attribute value a test used shows up in any log, argv or error text.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Secrets hygiene", .timeLimit(.minutes(2)))
struct SecretsHygieneTests {
    @Test("the scanner finds a registered value as text, hex, base64 or a byte list, and masks it in its report")
    func scannerFindsLeaks() throws {
        let value = "hunter2-but-longer"
        let scanner = LeakScanner(values: [value, "short"])
        let bytes = Array(value.utf8)
        let leaks: [(String, String)] = [
            ("text", "debug cofferd: stored secret=\(value) item=3"),
            ("hex", "trace cofferd: body " + bytes.map { String(format: "%02x", $0) }.joined()),
            ("base64", "debug: payload \(Data(bytes).base64EncodedString())"),
            ("bytes", "error: unexpected value \(bytes)"),
        ]
        for (form, line) in leaks {
            let findings = scanner.findings(in: Data(line.utf8), log: "planted.log")
            #expect(findings.map(\.form).contains(form), "\(form) not found in: \(line)")
            #expect(findings.allSatisfy { !$0.description.contains(value) }, "the report repeats the secret")
        }
        // Ordinary log lines, and values too short to register, are not leaks.
        let clean = "info cofferd: serving org.freedesktop.secrets dbus.unique=:1.4\ndebug: call failed short"
        #expect(scanner.findings(in: Data(clean.utf8), log: "clean.log").isEmpty)
    }

    @Test("the archive keeps logs and registered values, and a leak planted in an archived log is found")
    func archiveRoundTrip() throws {
        let archive = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-archive-\(UUID())")
        defer { try? FileManager.default.removeItem(at: archive) }
        let bus = archive.appendingPathComponent("coffer-bus-1")
        try FileManager.default.createDirectory(at: bus, withIntermediateDirectories: true)
        let value = "planted-\(UUID().uuidString)"
        try Data("debug cofferd: secret \(value)\n".utf8).write(to: bus.appendingPathComponent("cofferd.log"))
        try Data("password \(value)".utf8).write(to: bus.appendingPathComponent("cofferd.stdin"))  // not a log
        TestLogArchive.register([value], into: archive)
        TestLogArchive.collect(from: bus, into: archive)

        let logs = TestLogArchive.logs(in: archive)
        #expect(logs.map(\.name) == ["coffer-bus-1/cofferd.log"])
        let values = TestLogArchive.registeredValues(in: archive)
        #expect(values.contains(value))
        let scanner = LeakScanner(values: values)
        #expect(logs.flatMap { scanner.findings(in: $0.bytes, log: $0.name) }.count == 1)
    }

    @Test("cofferd's debug log, its pinentry log, its argv and its error replies hold nothing the workload sent")
    func workloadLeaksNothing() async throws {
        let workload = SensitiveWorkload()
        try await withDaemonSequence { daemons in
            let daemon = try await daemons.start(workload.options("hygiene"))
            let errorTexts = try await workload.run(on: daemons.bus)
            let argv = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(daemon.processID ?? 0)/cmdline"))) ?? Data()
            #expect(!argv.isEmpty)
            await daemons.stop()

            let scanner = LeakScanner(values: workload.everything)
            let pinentryLog = daemons.bus.directory.appendingPathComponent("hygiene.pinentry-log")
            var findings = scanner.findings(in: try Data(contentsOf: daemon.logFile), log: "cofferd log")
            findings += scanner.findings(in: (try? Data(contentsOf: pinentryLog)) ?? Data(), log: "pinentry log")
            findings += scanner.findings(in: argv, log: "cofferd argv")
            findings += errorTexts.flatMap { scanner.findings(in: Data($0.utf8), log: "error reply") }
            #expect(findings.isEmpty, "\(findings)")
            #expect(errorTexts.count == 2, "the failing calls did not fail: \(errorTexts)")
            // The log is the debug log of real work, not an empty file.
            #expect(daemon.log().contains("debug"), "log:\n\(daemon.log())")
        }
    }

    /// Runs after the whole suite: `make test` sets `COFFER_TEST_LOG_ARCHIVE` for the suite, then runs this with
    /// `COFFER_HYGIENE_SCAN=1`.
    @Test("no log of the whole test run holds a registered secret, password, label or attribute value",
          .enabled(if: ProcessInfo.processInfo.environment["COFFER_HYGIENE_SCAN"] == "1"))
    func wholeRunLeaksNothing() throws {
        let archive = try #require(TestLogArchive.directory, "COFFER_TEST_LOG_ARCHIVE is not set")
        let values = TestLogArchive.registeredValues(in: archive)
        let logs = TestLogArchive.logs(in: archive)
        let scanner = LeakScanner(values: values)
        let findings = logs.flatMap { scanner.findings(in: $0.bytes, log: $0.name) }
        let bytes = logs.reduce(0) { $0 + $1.bytes.count }
        print("reliability: hygiene-logs-scanned=\(logs.count)")
        print("reliability: hygiene-log-bytes=\(bytes)")
        print("reliability: hygiene-values=\(values.count)")
        print("reliability: hygiene-leaks=\(findings.count)")
        // An empty archive would prove nothing: the suite must have run with the archive on.
        #expect(values.count > 100 && logs.count > 50, "\(values.count) values, \(logs.count) logs")
        #expect(findings.isEmpty, "\(findings.prefix(50))")
    }
}
