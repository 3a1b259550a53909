// SPDX-License-Identifier: Apache-2.0
// A pinentry that hangs, ignores SIGTERM or dies: the prompt completes dismissed and cofferd goes on serving.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("Faults: a pinentry that hangs or dies", .timeLimit(.minutes(2)))
struct PinentryFaultTests {
    static let login = DaemonSequence.loginPath

    /// The scripted pinentry's misbehaviours (see `Tests/Fixtures/pinentry-script`).
    enum Misbehaviour: String, CaseIterable, Sendable {
        case hang = "HANG", stubborn = "STUBBORN", die = "DIE"
    }

    /// The processes whose parent is `pid`.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return false }
            // After "pid (comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    @Test("the unlock prompt completes dismissed (after --prompt-timeout, or at once when pinentry dies); the next one works",
          arguments: Misbehaviour.allCases)
    func misbehavingPinentry(_ misbehaviour: Misbehaviour) async throws {
        // A dead pinentry must not wait for the timeout: give it one far longer than the test may take.
        let timeout = misbehaviour == .die ? 3600 : 2
        try await withDaemonSequence { daemons in
            var options = DaemonSequence.options(
                "pinentry-\(misbehaviour.rawValue)", pinentryAnswers: [misbehaviour.rawValue, DaemonHarness.testLoginPassword])
            options.arguments += ["--prompt-timeout", "\(timeout)"]
            let daemon = try await daemons.start(options)
            let pid = try #require(daemon.processID)
            try await withClient(on: daemons.bus) { client in
                let item = try await client.createItem(in: Self.login, label: "behind a bad pinentry",
                                                       attributes: ["pinentry": misbehaviour.rawValue],
                                                       secret: secret("readable once unlocked"), replace: false)
                try await client.lock([Self.login])
                let started = ContinuousClock.now
                await #expect(throws: SecretServiceClientError.dismissed) { try await client.unlock([Self.login]) }
                let elapsed = ContinuousClock.now - started
                if misbehaviour == .die {
                    #expect(elapsed < .seconds(600), "a dead pinentry took \(elapsed) to dismiss")
                } else {
                    #expect(elapsed >= .seconds(timeout) && elapsed < .seconds(timeout + 20),
                            "dismissed after \(elapsed), the timeout is \(timeout) s")
                }
                // Only the pinentries count: under ThreadSanitizer cofferd also has a symbolizer child.
                let pinentries = daemon.pinentryProcessIDs
                #expect(pinentries.count == 1, "\(pinentries)")
                #expect(Self.children(of: pid).filter(pinentries.contains).isEmpty,
                        "a pinentry outlived its prompt:\n\(daemon.log())")
                #expect(try await client.collectionProperties(Self.login).locked)

                // cofferd keeps working: searching, and the next prompt (answered) unlocks.
                #expect(try await client.searchItems(["pinentry": misbehaviour.rawValue]).locked == [item])
                #expect(try await client.unlock([Self.login]) == [Self.login])
                #expect(try await client.secret(of: item).text == "readable once unlocked")
            }
            #expect(daemon.pinentryCommands.filter { $0 == "GETPIN" }.count == 2, "\(daemon.pinentryCommands)")
            await daemons.stop()
        }
    }
}
