// SPDX-License-Identifier: Apache-2.0
// cofferd --unlock at the edges: an empty password, and a new password confirmed at a terminal.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("cofferd --unlock: empty and confirmed passwords", .timeLimit(.minutes(2)))
struct LoginPasswordOptionTests {
    @Test("an empty password on standard input creates no login collection and says so in one warning line")
    func emptyPasswordCreatesNothing() async throws {
        try await withDaemonSequence { daemons in
            let daemon = try await daemons.start(DaemonSequence.options("empty", loginPassword: ""))
            #expect(daemon.log().contains("cofferd: warning: --unlock read an empty password; the login collection is not created"),
                    "log:\n\(daemon.log())")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(!(try await client.collections().contains(DaemonSequence.loginPath)))
            }
            #expect(!FileManager.default.fileExists(atPath: daemons.collectionFile("login").path))
            await daemons.stop()
        }
    }

    @Test("an empty password leaves an existing login collection locked and its file as it was")
    func emptyPasswordLeavesLoginLocked() async throws {
        try await withDaemonSequence { daemons in
            _ = try await daemons.start(DaemonSequence.options("create"))
            await daemons.stop()
            let before = try daemons.fileBytes("login")
            let daemon = try await daemons.start(DaemonSequence.options("empty", loginPassword: ""))
            // With login on disk the password is read while cofferd serves, so the warning may follow the name claim.
            try await daemon.waitForLog(containing: "--unlock read an empty password; the login collection is left locked")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(try await client.collectionProperties(DaemonSequence.loginPath).locked)
            }
            await daemons.stop()
            #expect(try daemons.fileBytes("login") == before)
        }
    }

    @Test("at a terminal, a password that creates login is asked twice; a mismatch asks again")
    func newPasswordConfirmedAtTerminal() async throws {
        try await withDaemonSequence { daemons in
            let bus = daemons.bus
            let password = "confirmed pw Hs62"
            TestLogArchive.register([password, "typo one Xw", "typo two Yv"])
            let input = bus.directory.appendingPathComponent("terminal-input")
            try Data("typo one Xw\ntypo two Yv\n\(password)\n\(password)\n".utf8).write(to: input)
            let output = bus.directory.appendingPathComponent("terminal-output")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let cofferd = try DaemonHarness.executableURL().path
            let watcher = try await bus.connect()
            try await watcher.addMatch(PAMModuleStartTests.nameOwnerRule)

            // script(1) gives cofferd a pseudo-terminal and types the input into it.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-q", "-e", "-c",
                                 "'\(cofferd)' --address '\(bus.address)' --data-dir '\(daemons.dataDirectory.path)' "
                                     + DaemonHarness.cheapKeyDerivation.joined(separator: " ") + " --unlock",
                                 "/dev/null"]
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": bus.directory.path, "TERM": "dumb"]
            process.standardInput = try FileHandle(forReadingFrom: input)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            let exited = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
            try process.run()
            let owner = try await withDeadline(waitingFor: "cofferd under script to own the name") {
                await PAMModuleStartTests.nextOwner(on: watcher)
            }
            let transcript = { String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self) }
            #expect(owner != nil && owner != "", "\(transcript())")
            if let pid = try await watcher.processID(of: SecretServiceNames.busName) { kill(pid_t(pid), SIGTERM) }
            var iterator = exited.stream.makeAsyncIterator()
            _ = await iterator.next()
            await watcher.close()
            let text = transcript()
            #expect(text.components(separatedBy: "New login password:").count == 3, "\(text)")
            #expect(text.components(separatedBy: "Repeat the new login password:").count == 3, "\(text)")
            #expect(text.contains("The passwords differ; try again."), "\(text)")

            // The confirmed password, not a typo, is login's.
            let daemon = try await daemons.start(DaemonSequence.options("check", loginPassword: password))
            try await withClient(on: bus) { client async throws in
                #expect(!(try await client.collectionProperties(DaemonSequence.loginPath).locked))
            }
            // Read after a call on login, which waits for the start-up unlock and so for any line it writes.
            #expect(!daemon.log().contains("does not unlock"), "log:\n\(daemon.log())")
            await daemons.stop()
        }
    }
}
