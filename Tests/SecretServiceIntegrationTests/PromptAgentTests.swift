// SPDX-License-Identifier: Apache-2.0
// `coffer prompt-agent`: where no pinentry can be seen, cofferd's password prompts are answered by the agent.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Prompt agent", .timeLimit(.minutes(2)))
struct PromptAgentTests {
    /// A running `coffer prompt-agent` whose stdin holds the answers.
    final class Agent: Sendable {
        let process: Process
        let errors: Pipe

        init(bus: TestBus, answers: [String]) throws {
            let input = Pipe()
            errors = Pipe()
            process = Process()
            process.executableURL = try CofferCLI.executable()
            process.arguments = ["prompt-agent"]
            process.environment = ClientEnvironment(bus: bus).variables
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            input.fileHandleForWriting.write(Data(answers.map { $0 + "\n" }.joined().utf8))
        }

        /// Returns once the agent says it is registered; the stderr it printed so far.
        func waitUntilRegistered() async throws -> String {
            let reader = errors.fileHandleForReading
            return try await withDeadline(waitingFor: "coffer prompt-agent to register") {
                await withCheckedContinuation { continuation in
                    // Blocking reads, on a thread of their own rather than the test's executor.
                    Thread.detachNewThread {
                        var seen = ""
                        // availableData returns what one read(2) gets; read(upToCount:) would wait for all 256.
                        while case let chunk = reader.availableData, !chunk.isEmpty {
                            seen += String(decoding: chunk, as: UTF8.self)
                            if seen.contains("answering cofferd's prompts") { break }
                        }
                        continuation.resume(returning: seen)
                    }
                }
            }
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    @Test("with no display, the agent's answers create login for secret-tool and later unlock it")
    func agentAnswers() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: .init(loginPassword: nil,
                                                                               environment: ["DISPLAY": ""]))
            let agent = try Agent(bus: bus, answers: ["agent pass", "agent pass", "agent pass"])
            defer { agent.stop() }
            let said = try await agent.waitUntilRegistered()
            #expect(said.contains("answering cofferd's prompts"), "agent said: \(said)")

            let env = ClientEnvironment(bus: bus)
            let store = try await env.secretTool(["store", "--label", "via agent", "app", "agent"],
                                                 input: Data("agent secret".utf8))
            store.expectSuccess("secret-tool store")
            #expect(daemon.pinentryCommands.isEmpty, "a pinentry ran with nobody to see it")
            // The new password the agent gave (twice) is login's: locking and unlocking asks the agent again.
            let cli = CofferCLI(bus: bus)
            let lock = try await cli.run(["lock-keychain", "login"])
            #expect(lock.status == 0, "lock-keychain: \(lock.stderr)")
            let lookup = try await env.secretTool(["lookup", "app", "agent"])
            lookup.expectSuccess("secret-tool lookup after the agent unlocked login")
            #expect(lookup.text == "agent secret")
            let status = try await cli.run(["status"])
            #expect(!status.text.contains("last failed prompt"), "\(status.text)")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("with no display, the agent answers access questions: once, deny, always for one secret, whole keyring")
    func agentConsent() async throws {
        try await TestBus.withPrivateBus { bus in
            var options = AccessManagementTests.options([])
            options.environment["DISPLAY"] = ""
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let env = ClientEnvironment(bus: bus)
            let a = try AccessManagementTests.application("a", env)
            let b = try AccessManagementTests.application("b", env)
            let c = try AccessManagementTests.application("c", env)
            #expect(try await a(["store", "one", "first secret"]) == "stored")
            #expect(try await a(["store", "two", "second secret"]) == "stored")
            // b: once, then no, then always for this secret; c: always, for the whole keyring.
            let agent = try Agent(bus: bus, answers: ["o", "n", "a", "t", "a", "k"])
            defer { agent.stop() }
            _ = try await agent.waitUntilRegistered()

            #expect(try await b(["unlock", "one"]) == "first secret")
            #expect(try await b(["read", "one"]) == "locked")
            #expect(try await b(["unlock", "one"]) == "denied")
            #expect(try await b(["unlock", "one"]) == "first secret")
            #expect(try await b(["read", "one"]) == "first secret")
            #expect(try await b(["read", "two"]) == "locked")

            #expect(try await c(["unlock", "one"]) == "first secret")
            #expect(try await c(["read", "two"]) == "second secret")
            #expect(daemon.pinentryCommands.isEmpty, "a pinentry ran with nobody to see it")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("an agent must register with an encrypted session of its own")
    func registrationNeedsOwnEncryptedSession() async throws {
        try await DaemonHarness.withDaemon(algorithm: .plain) { bus, _, plain in
            func register(_ client: SecretService, session: ObjectPath) async throws {
                let call = Message.methodCall(
                    destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
                    interface: SecretServiceNames.cofferInterface, member: "RegisterPromptAgent",
                    body: [.objectPath("/io/coffer/PromptAgent"), .objectPath(session)])
                _ = try await client.connection.call(call)
            }
            let refused = await #expect(throws: DBusError.self) {
                try await register(plain, session: plain.session.path)
            }
            #expect(refused?.name == .invalidArgs)
            // Another client's session, even an encrypted one, is not the caller's.
            let other = try await SecretService.connect(address: bus.address)
            let stolen = await #expect(throws: DBusError.self) {
                try await register(plain, session: other.session.path)
            }
            #expect(stolen?.name == SecretErrorNames.noSession)
            try await register(other, session: other.session.path)
            await other.close()
        }
    }
}
