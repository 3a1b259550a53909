// SPDX-License-Identifier: Apache-2.0
// Small helpers the integration tests share: secrets from strings, and waiting for one signal with a deadline.

import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport

/// A secret holding the UTF-8 bytes of `text`, registered as a value no log may contain (its first 64 characters:
/// a log holding any of a secret holds those).
func secret(_ text: String) -> SecretBytes {
    TestLogArchive.register([String(text.prefix(64))])
    return try! SecretBytes(copying: Array(text.utf8))
}

extension ItemSecret {
    /// The plaintext as an array, for comparisons in tests.
    var bytes: [UInt8] { value.copyBytes() }
    /// The plaintext as UTF-8 text.
    var text: String { String(decoding: value.copyBytes(), as: UTF8.self) }
}

/// Waits for the first signal in `subscription` that satisfies `predicate`; fails after 10 s rather than hanging.
func nextSignal(_ subscription: SignalSubscription, _ what: String,
                where predicate: @escaping @Sendable (Message) -> Bool = { _ in true }) async throws -> Message {
    try await withDeadline(.seconds(10), waitingFor: what) {
        for await signal in subscription where predicate(signal) { return signal }
        throw DeadlineExceeded(what: "\(what) (the subscription ended)", limit: .zero)
    }
}

/// Whether `message`'s first argument is the object path `path`.
func firstArgument(of message: Message, is path: ObjectPath) -> Bool { message.body.first?.objectPath == path }

/// The changed-properties dictionary of a `PropertiesChanged` signal.
func changedProperties(_ message: Message) -> [String: DBusValue] { message.body.dropFirst().first?.variantDictionary ?? [:] }

/// The D-Bus error name a `SecretServiceError` stands for, for `#expect` comparisons.
func errorName(_ error: SecretServiceError?) -> ErrorName? { error?.dbusError.name }

/// The canonical path of the collection behind the `default` alias (created first if the provider has none).
func defaultCollectionPath(_ client: SecretService) async throws -> ObjectPath {
    _ = try await client.defaultCollection()
    guard let path = try await client.readAlias(SecretServiceNames.defaultAlias) else {
        throw SecretServiceClientError.unexpectedReply("no default alias")
    }
    return path
}
