// SPDX-License-Identifier: Apache-2.0
// Repeated reads against a real cofferd: fewer entries than reads, and `coffer access log` accounts for each read.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access log: repeated uses counted")
struct AccessLogCountTests {
    /// `store NAME VALUE` as ``AccessManagementTests/program``; `read NAME COUNT` reads the item's secret COUNT
    /// times over one connection and prints it once.
    static let program = """
        import sys, secretstorage
        conn = secretstorage.dbus_init()
        role, name = sys.argv[1], sys.argv[2]
        if role == 'store':
            col = secretstorage.get_default_collection(conn)
            col.create_item('label of ' + name, {'name': name}, sys.argv[3].encode(), replace=True)
            print('stored')
            sys.exit(0)
        item = list(secretstorage.search_items(conn, {'name': name}))[0]
        secrets = {item.get_secret() for _ in range(int(sys.argv[3]))}
        print(b','.join(secrets).decode())
        """

    @Test("50 reads by one process make fewer than 50 entries, whose counts add up to 50 in text and --json")
    func fiftyReads() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: AccessManagementTests.options([]))
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let a = try AccessManagementTests.application("a", env, program: Self.program)
            #expect(try await a(["store", "mail", "the mail secret"]) == "stored")
            #expect(try await a(["read", "mail", "50"]) == "the mail secret")

            let reads = try await AccessManagementTests.log(coffer).filter { $0["outcome"] as? String == "read" }
            let counts = reads.compactMap { $0["count"] as? Int }
            #expect(counts.count == reads.count && counts.reduce(0, +) == 50, "\(reads)")
            #expect(reads.count < 50, "\(reads.count) entries for 50 reads")
            for entry in reads {
                let first = try #require(entry["time"] as? Int)
                let last = try #require(entry["lastTime"] as? Int)
                #expect(first <= last, "\(entry)")
            }
            // The text form says how many reads each line stands for.
            let text = try await coffer.run(["access", "log"])
            #expect(text.status == 0, "\(text.stderr)")
            let shown = text.text.split(separator: "\n").filter { $0.contains("\tread") }
            let times = shown.map { line -> Int in
                guard let mark = line.range(of: "\tread ×") else { return 1 }
                return Int(line[mark.upperBound...].prefix { $0.isNumber }) ?? 0
            }
            #expect(times.reduce(0, +) == 50, "\(text.text)")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}
