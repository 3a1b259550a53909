// SPDX-License-Identifier: Apache-2.0
// Where a blocking SecItem call runs: on the shared connection's loop thread, and never called from it.

import Foundation
import CofferKeychain
@testable import Security
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Loop thread")
    struct LoopThreadTests {
        @Test("a SecItem call made on the connection's own loop thread returns errSecInternalError instead of hanging",
              .timeLimit(.minutes(1)))
        func callOnLoopThreadFails() async throws {
            try await withKeychain(.cofferd) { _, _, _ in
                #expect(addGenericPassword(service: "loop", account: "a", password: "p") == errSecSuccess)
                let client = try #require(ProviderRegistry.shared.readyClient(for: KeychainConfiguration.current.busKey))
                let (onLoop, status) = try await withDeadline(.seconds(10), waitingFor: "a SecItem call on the loop") {
                    await withTaskExecutorPreference(client.loopExecutor) {
                        (client.isOnLoopThread, readGenericPassword(service: "loop", account: "a").0)
                    }
                }
                #expect(onLoop, "the call was meant to be made on the loop thread")
                #expect(status == errSecInternalError)
                // The same call from anywhere else still works: nothing was left waiting.
                #expect(readGenericPassword(service: "loop", account: "a") == (errSecSuccess, "p"))
            }
        }

        @Test("the operation runs on the connection's loop thread", arguments: Provider.allCases)
        func operationRunsOnLoop(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "loop", account: "b", password: "p") == errSecSuccess)
                let configuration = KeychainConfiguration.current
                let onLoop = OperationContext.performBlocking(configuration, interaction: .allow) { context in
                    context.client.isOnLoopThread
                }
                #expect(onLoop == .success(true))
            }
        }
    }
}
