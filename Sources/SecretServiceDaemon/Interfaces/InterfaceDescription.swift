// SPDX-License-Identifier: Apache-2.0
// Declarations of D-Bus interfaces: the one source for argument checking and introspection.

public import DBusWire

/// A named, typed argument of a method or signal.
public struct ArgumentDescription: Sendable, Hashable {
    public var name: String
    public var type: DBusType
    public init(_ name: String, _ type: DBusType) {
        self.name = name
        self.type = type
    }
}

/// A method: its name and its input and output arguments.
public struct MethodDescription: Sendable, Hashable {
    public var name: MemberName
    public var inputs: [ArgumentDescription]
    public var outputs: [ArgumentDescription]
    /// The signature a call must carry.
    public var inputSignature: Signature { Signature(inputs.map(\.type)) }

    public init(_ name: MemberName, in inputs: [ArgumentDescription] = [], out outputs: [ArgumentDescription] = []) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
    }
}

/// A property: name, type and whether clients may set it.
public struct PropertyDescription: Sendable, Hashable {
    public enum Access: String, Sendable { case read, readwrite }
    public var name: String
    public var type: DBusType
    public var access: Access

    public init(_ name: String, _ type: DBusType, _ access: Access = .read) {
        self.name = name
        self.type = type
        self.access = access
    }
}

/// A signal: name and arguments.
public struct SignalDescription: Sendable, Hashable {
    public var name: MemberName
    public var arguments: [ArgumentDescription]
    public init(_ name: MemberName, _ arguments: [ArgumentDescription] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// One D-Bus interface.
public struct InterfaceDescription: Sendable, Hashable {
    public var name: InterfaceName
    public var methods: [MethodDescription]
    public var properties: [PropertyDescription]
    public var signals: [SignalDescription]

    public init(_ name: InterfaceName, methods: [MethodDescription] = [], properties: [PropertyDescription] = [],
                signals: [SignalDescription] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// The method named `member`, if the interface has it.
    public func method(_ member: MemberName) -> MethodDescription? {
        methods.first { $0.name == member }
    }

    /// The property named `name`, if the interface has it.
    public func property(_ name: String) -> PropertyDescription? {
        properties.first { $0.name == name }
    }
}
