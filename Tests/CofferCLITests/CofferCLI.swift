// SPDX-License-Identifier: Apache-2.0
// What the coffer CLI suites share: the providers they run against, a cofferd nobody can answer prompts for, and
// small readers of coffer's output.

import SecretServiceTestSupport

/// The providers the security(1) verbs are tested against.
typealias Provider = TestProvider

/// The line a secret on argv must produce.
let argvWarning = "visible to other processes"

/// cofferd as on a machine where nobody can answer a prompt (an SSH session, a service): its pinentry cancels
/// every request, so whatever a command needs must work without the provider's dialogue. Collections are created
/// with the cheap key derivation.
func withHeadlessCofferd(_ body: (TestBus, DaemonHarness, CofferCLI) async throws -> Void) async throws {
    try await TestBus.withPrivateBus { bus in
        let harness = try await DaemonHarness.start(on: bus, options: .init(
            arguments: DaemonHarness.cheapKeyDerivation, pinentryAnswers: []))
        do {
            try await body(bus, harness, CofferCLI(bus: bus))
            _ = await harness.stop()
        } catch {
            _ = await harness.stop()
            throw error
        }
    }
}

/// The collections `coffer list-keychains --json` reports, by id.
func keychains(_ coffer: CofferCLI) async throws -> [String: [String: Any]] {
    let (_, listed) = try await coffer.json(["list-keychains"])
    var byID: [String: [String: Any]] = [:]
    for collection in listed as? [[String: Any]] ?? [] {
        if let id = collection["id"] as? String { byID[id] = collection }
    }
    return byID
}

/// `coffer VERB --help` with its line wrapping undone, so a test can look for a sentence wherever it breaks.
func help(_ verb: [String], _ coffer: CofferCLI) async throws -> String {
    try await coffer.run(verb + ["--help"]).text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}
