// SPDX-License-Identifier: Apache-2.0
// The attributes a new certificate or key item takes from its data (mapping §6.4).

import Foundation

extension OperationContext {
    /// Fills in what a key's external representation determines, where the caller gave nothing: size, effective
    /// size and (for asymmetric keys) the application label; and records the representation's format.
    func keyAttributes(_ query: ItemQuery, schema: ItemSchema, into attributes: inout [String: String])
        throws(KeychainFailure) {
        // The class and type say how to read the data, so they must be given (absent, they read as 0).
        guard let data = query.valueData, query.attributes["kcls"] != nil, query.attributes["type"] != nil,
              let keyClass = attributes["keychain:kcls"].flatMap({ Int64($0) }),
              let keyType = attributes["keychain:type"].flatMap({ Int64($0) })
        else { throw KeychainFailure(errSecParam) }
        let fields = try KeyFields(data: data, keyClass: keyClass, keyType: keyType)
        for name in ["keychain:bsiz", "keychain:esiz"] where attributes[name] == "0" {
            attributes[name] = String(fields.sizeInBits)
        }
        if let label = fields.applicationLabel, attributes["keychain:klbl"] == "", let spec = schema.attributes["klbl"] {
            let encoded = try AttributeCodec.encode(.data(label), as: spec)
            attributes["keychain:klbl"] = encoded.text
            var markers = AttributeCodec.parseTypes(attributes[ItemSchema.typesAttribute])
            markers["klbl"] = encoded.marker
            attributes[ItemSchema.typesAttribute] = AttributeCodec.formatTypes(markers)
        }
        attributes["keychain:keyfmt"] = fields.format
    }

    /// Writes the attributes derived from a certificate's DER over whatever the caller gave for them.
    /// - Returns: the subject summary, the default label.
    func certificateAttributes(_ der: Data?, into attributes: inout [String: String])
        throws(KeychainFailure) -> String {
        guard let der else { throw KeychainFailure(errSecParam) }
        let fields = try CertificateFields(der: der)
        let hex = AttributeCodec.hexEncoded
        attributes["keychain:ctyp"] = String(fields.certificateType)
        attributes["keychain:cenc"] = String(CertificateFields.derEncoding)
        attributes["keychain:issr"] = hex(fields.issuer)
        attributes["keychain:slnr"] = hex(fields.serialNumber)
        attributes["keychain:subj"] = hex(fields.subject)
        attributes["keychain:skid"] = fields.subjectKeyID.map(hex)
        attributes["keychain:pkhh"] = hex(fields.publicKeyHash)
        return fields.summary
    }
}
