// SPDX-License-Identifier: Apache-2.0
// The two transfer-session algorithms the Secret Service specification defines.

import SecretServiceProtocol

/// How secrets travel between the client and the provider.
public enum SessionAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// `dh-ietf1024-sha256-aes128-cbc-pkcs7`: Diffie-Hellman key agreement, then AES-128-CBC per secret.
    case dh
    /// `plain`: secrets travel unencrypted (the bus is local, but any bus monitor could read them).
    case plain

    /// The name sent in `OpenSession`.
    public var wireName: String {
        switch self {
        case .dh: SecretServiceNames.dhAlgorithm
        case .plain: SecretServiceNames.plainAlgorithm
        }
    }
}
