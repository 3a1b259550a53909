// SPDX-License-Identifier: Apache-2.0
// SecCertificate and SecKey values as kSecValueRef gives them and kSecReturnRef hands them back, in Sendable form.

import Foundation

/// A certificate or key object reduced to what rebuilds it: the item's secret plus, for keys, class and type.
/// Objects are read and rebuilt on the caller's thread; only this crosses to the operation thread.
enum ItemReference: Sendable, Equatable {
    case certificate(der: Data)
    case key(data: Data, keyClass: Int64, keyType: Int64)

    /// Reads a `kSecValueRef` value, or returns `nil` for anything but a `SecCertificate` or `SecKey`.
    init?(_ value: Any) {
        if let certificate = value as? SecCertificate {
            self = .certificate(der: certificate.der)
        } else if let key = value as? SecKey {
            self = .key(data: key.data, keyClass: key.keyClass, keyType: key.keyType)
        } else {
            return nil
        }
    }

    /// The reference to a stored item of `itemClass` with secret `data` and Apple attributes `attributes`.
    init?(itemClass: ItemClass, data: Data, attributes: [String: KeychainValue]) {
        switch (itemClass, attributes["kcls"], attributes["type"]) {
        case (.certificate, _, _): self = .certificate(der: data)
        case (.key, .integer(let keyClass)?, .integer(let keyType)?):
            self = .key(data: data, keyClass: keyClass, keyType: keyType)
        default: return nil
        }
    }

    /// The class of item the reference stands for.
    var itemClass: ItemClass {
        switch self {
        case .certificate: .certificate
        case .key: .key
        }
    }

    /// The item's secret: DER or the key's external representation.
    var data: Data {
        switch self {
        case .certificate(let der): der
        case .key(let data, _, _): data
        }
    }

    /// The `SecCertificate` or `SecKey`, or `nil` when the stored bytes do not make one.
    var object: AnyObject? {
        switch self {
        case .certificate(let der): SecCertificate(der: der)
        case .key(let data, let keyClass, let keyType): SecKey(data: data, keyClass: keyClass, keyType: keyType)
        }
    }
}
