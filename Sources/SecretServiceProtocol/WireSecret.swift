// SPDX-License-Identifier: Apache-2.0
// The spec's Secret struct `(oayays)` as it travels on the wire (values possibly encrypted by the session).

public import DBusWire

/// A `Secret` struct exactly as on the wire: session path, algorithm parameters (the IV for DH), the value
/// (ciphertext for DH, plaintext for `plain`) and the content type.
public struct WireSecret: Hashable, Sendable {
    public var session: ObjectPath
    public var parameters: [UInt8]
    public var value: [UInt8]
    public var contentType: String

    public init(session: ObjectPath, parameters: [UInt8], value: [UInt8], contentType: String) {
        self.session = session
        self.parameters = parameters
        self.value = value
        self.contentType = contentType
    }

    /// The D-Bus type `(oayays)`.
    public static let type = DBusType.structure([.objectPath, .array(.byte), .array(.byte), .string])

    /// Reads a `(oayays)` value; `nil` when the value has another shape.
    public init?(_ value: DBusValue) {
        guard let fields = value.structureFields, fields.count == 4,
              let session = fields[0].objectPath, let parameters = fields[1].bytes,
              let bytes = fields[2].bytes, let contentType = fields[3].string
        else { return nil }
        self.init(session: session, parameters: parameters, value: bytes, contentType: contentType)
    }

    /// The `(oayays)` value.
    public var dbusValue: DBusValue {
        .structure([.objectPath(session), .bytes(parameters), .bytes(value), .string(contentType)])
    }
}
