// SPDX-License-Identifier: Apache-2.0
// The Secret Service interfaces (spec 0.2) and the standard D-Bus interfaces every object carries.

import DBusWire
import SecretServiceProtocol

/// The interfaces the provider serves, as declarations. `dbus/org.freedesktop.Secrets.xml` must agree with them;
/// a test compares the two.
public enum SecretInterfaces {
    static let secret = WireSecret.type
    static let paths = DBusType.array(.objectPath)
    static let attributes = DBusType.dictionary(key: .string, value: .string)
    static let propertyMap = DBusType.dictionary(key: .string, value: .variant)

    public static let service = InterfaceDescription(
        SecretServiceNames.serviceInterface,
        methods: [
            MethodDescription("OpenSession", in: [.init("algorithm", .string), .init("input", .variant)],
                              out: [.init("output", .variant), .init("result", .objectPath)]),
            MethodDescription("CreateCollection", in: [.init("properties", propertyMap), .init("alias", .string)],
                              out: [.init("collection", .objectPath), .init("prompt", .objectPath)]),
            MethodDescription("SearchItems", in: [.init("attributes", attributes)],
                              out: [.init("unlocked", paths), .init("locked", paths)]),
            MethodDescription("Unlock", in: [.init("objects", paths)],
                              out: [.init("unlocked", paths), .init("prompt", .objectPath)]),
            MethodDescription("Lock", in: [.init("objects", paths)],
                              out: [.init("locked", paths), .init("Prompt", .objectPath)]),
            MethodDescription("GetSecrets", in: [.init("items", paths), .init("session", .objectPath)],
                              out: [.init("secrets", .dictionary(key: .objectPath, value: secret))]),
            MethodDescription("ReadAlias", in: [.init("name", .string)], out: [.init("collection", .objectPath)]),
            MethodDescription("SetAlias", in: [.init("name", .string), .init("collection", .objectPath)]),
        ],
        properties: [PropertyDescription("Collections", paths)],
        signals: [
            SignalDescription("CollectionCreated", [.init("collection", .objectPath)]),
            SignalDescription("CollectionDeleted", [.init("collection", .objectPath)]),
            SignalDescription("CollectionChanged", [.init("collection", .objectPath)]),
        ])

    public static let collection = InterfaceDescription(
        SecretServiceNames.collectionInterface,
        methods: [
            MethodDescription("Delete", out: [.init("prompt", .objectPath)]),
            MethodDescription("SearchItems", in: [.init("attributes", attributes)], out: [.init("results", paths)]),
            MethodDescription("CreateItem",
                              in: [.init("properties", propertyMap), .init("secret", secret), .init("replace", .boolean)],
                              out: [.init("item", .objectPath), .init("prompt", .objectPath)]),
        ],
        properties: [
            PropertyDescription("Items", paths),
            PropertyDescription("Label", .string, .readwrite),
            PropertyDescription("Locked", .boolean),
            PropertyDescription("Created", .uint64),
            PropertyDescription("Modified", .uint64),
        ],
        signals: [
            SignalDescription("ItemCreated", [.init("item", .objectPath)]),
            SignalDescription("ItemDeleted", [.init("item", .objectPath)]),
            SignalDescription("ItemChanged", [.init("item", .objectPath)]),
        ])

    public static let item = InterfaceDescription(
        SecretServiceNames.itemInterface,
        methods: [
            MethodDescription("Delete", out: [.init("Prompt", .objectPath)]),
            MethodDescription("GetSecret", in: [.init("session", .objectPath)], out: [.init("secret", secret)]),
            MethodDescription("SetSecret", in: [.init("secret", secret)]),
        ],
        properties: [
            PropertyDescription("Locked", .boolean),
            PropertyDescription("Attributes", attributes, .readwrite),
            PropertyDescription("Label", .string, .readwrite),
            PropertyDescription("Created", .uint64),
            PropertyDescription("Modified", .uint64),
        ])

    public static let session = InterfaceDescription(
        SecretServiceNames.sessionInterface, methods: [MethodDescription("Close")])

    public static let prompt = InterfaceDescription(
        SecretServiceNames.promptInterface,
        methods: [MethodDescription("Prompt", in: [.init("window-id", .string)]), MethodDescription("Dismiss")],
        signals: [SignalDescription("Completed", [.init("dismissed", .boolean), .init("result", .variant)])])

    // MARK: - Standard interfaces

    public static let properties = InterfaceDescription(
        SecretServiceNames.propertiesInterface,
        methods: [
            MethodDescription("Get", in: [.init("interface_name", .string), .init("property_name", .string)],
                              out: [.init("value", .variant)]),
            MethodDescription("GetAll", in: [.init("interface_name", .string)], out: [.init("properties", propertyMap)]),
            MethodDescription("Set", in: [.init("interface_name", .string), .init("property_name", .string),
                                          .init("value", .variant)]),
        ],
        signals: [SignalDescription("PropertiesChanged", [
            .init("interface_name", .string), .init("changed_properties", propertyMap),
            .init("invalidated_properties", .array(.string)),
        ])])

    public static let introspectable = InterfaceDescription(
        SecretServiceNames.introspectableInterface,
        methods: [MethodDescription("Introspect", out: [.init("xml_data", .string)])])

    public static let peer = InterfaceDescription(
        SecretServiceNames.peerInterface,
        methods: [MethodDescription("Ping"), MethodDescription("GetMachineId", out: [.init("machine_uuid", .string)])])

    /// The standard interfaces every object of ours carries, after its own.
    public static let standard = [properties, introspectable, peer]
}
