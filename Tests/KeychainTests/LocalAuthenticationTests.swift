// SPDX-License-Identifier: Apache-2.0
// iOS code that imports LocalAuthentication beside the keychain API builds unchanged, never reports a successful
// biometric check on Linux, and its no-interaction context keeps SecItem calls from prompting.

import Security
import Foundation
import LocalAuthentication
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("LocalAuthentication")
    struct LocalAuthenticationTests {
        @Test("canEvaluatePolicy is false with Apple's error codes; evaluatePolicy fails in both forms")
        func policiesAreUnavailable() async throws {
            // The usual gate before a biometric save, as apps write it.
            let context = LAContext()
            var error: NSError?
            let canUseBiometry = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
            #expect(!canUseBiometry)
            #expect(error?.domain == LAErrorDomain)
            #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
            #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil))

            let replied: (Bool, (any Error)?) = await withCheckedContinuation { continuation in
                context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock your notes") { success, error in
                    continuation.resume(returning: (success, error))
                }
            }
            #expect(!replied.0)
            #expect((replied.1 as? LAError)?.code == .passcodeNotSet)
            await #expect(throws: LAError(.biometryNotAvailable)) {
                try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
            }
        }

        @Test("a context with interactionNotAllowed from `import LocalAuthentication` keeps a locked read from prompting",
              arguments: Provider.allCases)
        func contextForbidsPrompts(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, client in
                #expect(addGenericPassword(service: "la", account: "a", password: "p") == errSecSuccess)
                try await client.lock([try await client.defaultCollection()])
                let context = LAContext()
                context.interactionNotAllowed = true
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: "la",
                                            kSecReturnData as String: true,
                                            kSecUseAuthenticationContext as String: context]
                var item: CFTypeRef?
                #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecInteractionNotAllowed)
                #expect(item == nil)
            }
        }
    }
}
