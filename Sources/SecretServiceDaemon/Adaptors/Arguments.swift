// SPDX-License-Identifier: Apache-2.0
// Typed reading of call arguments whose signature the router has already checked.

import DBusWire
import SecretServiceProtocol

/// Reads arguments by position. The router has checked the signature, so a mismatch here is a bug in a
/// declaration; it is still reported as InvalidArgs rather than trapping.
struct Arguments {
    let values: [DBusValue]

    init(_ call: MethodCall) { values = call.arguments }

    private func value(_ index: Int) throws(SecretServiceError) -> DBusValue {
        guard index < values.count else { throw .invalidArgs("missing argument \(index + 1)") }
        return values[index]
    }

    func string(_ index: Int) throws(SecretServiceError) -> String {
        guard let v = try value(index).string else { throw .invalidArgs("argument \(index + 1) must be a string") }
        return v
    }

    func objectPath(_ index: Int) throws(SecretServiceError) -> ObjectPath {
        guard let v = try value(index).objectPath else { throw .invalidArgs("argument \(index + 1) must be a path") }
        return v
    }

    func bool(_ index: Int) throws(SecretServiceError) -> Bool {
        guard let v = try value(index).bool else { throw .invalidArgs("argument \(index + 1) must be a boolean") }
        return v
    }

    func uint32(_ index: Int) throws(SecretServiceError) -> UInt32 {
        guard let v = try value(index).uint32 else { throw .invalidArgs("argument \(index + 1) must be a uint32") }
        return v
    }

    func uint64(_ index: Int) throws(SecretServiceError) -> UInt64 {
        guard let v = try value(index).uint64 else { throw .invalidArgs("argument \(index + 1) must be a uint64") }
        return v
    }

    func objectPaths(_ index: Int) throws(SecretServiceError) -> [ObjectPath] {
        guard let elements = try value(index).arrayElements else {
            throw .invalidArgs("argument \(index + 1) must be an array of paths")
        }
        return elements.compactMap(\.objectPath)
    }

    func attributes(_ index: Int) throws(SecretServiceError) -> [String: String] {
        guard let v = try value(index).stringDictionary else {
            throw .invalidArgs("argument \(index + 1) must be a string-to-string map")
        }
        return v
    }

    func properties(_ index: Int) throws(SecretServiceError) -> [String: DBusValue] {
        guard let v = try value(index).variantDictionary else {
            throw .invalidArgs("argument \(index + 1) must be a property map")
        }
        return v
    }

    func secret(_ index: Int) throws(SecretServiceError) -> WireSecret {
        guard let v = WireSecret(try value(index)) else { throw .invalidArgs("argument \(index + 1) must be a secret") }
        return v
    }

    func variant(_ index: Int) throws(SecretServiceError) -> DBusValue {
        guard let v = try value(index).variantValue else { throw .invalidArgs("argument \(index + 1) must be a variant") }
        return v
    }
}
