// SPDX-License-Identifier: Apache-2.0
// Each D-Bus method declared once, with the adaptor code that answers it: dispatch, checking and introspection agree.

import DBusWire
import SecretServiceProtocol

/// One method of an adaptor's interface: its name and arguments beside the adaptor function that answers it. The
/// router checks a call's signature against ``description``, introspection shows it, and dispatch runs ``answer``,
/// so a member cannot be served without being declared, or declared without being served.
struct AdaptorMethod<Adaptor>: Sendable {
    typealias Answer = @Sendable (Adaptor, MethodCall) async throws -> HandlerResult

    let description: MethodDescription
    /// Whether the call waits for a start-up unlock under way (``PendingUnlockGate``) when it is made on the service
    /// object, whose path names no collection: set on members that take collections by path or by attributes.
    let waitsForUnlocks: Bool
    /// Throws ``SecretServiceError`` for what the caller did wrong; the router answers anything else as an internal
    /// error. (Closures given here are not inferred as throwing the typed error, hence the untyped `throws`.)
    let answer: Answer

    /// - Parameters:
    ///   - name: the member name.
    ///   - inputs: the arguments a call must carry, in order.
    ///   - outputs: the reply's values, in order.
    ///   - waitsForUnlocks: see ``waitsForUnlocks``.
    ///   - answer: the adaptor's handler; the arguments match `inputs` when it runs.
    init(_ name: MemberName, in inputs: [ArgumentDescription] = [], out outputs: [ArgumentDescription] = [],
         waitsForUnlocks: Bool = false, _ answer: @escaping Answer) {
        description = MethodDescription(name, in: inputs, out: outputs)
        self.waitsForUnlocks = waitsForUnlocks
        self.answer = answer
    }
}

/// A method as the router holds it: its declaration, and its answer with the adaptor made per call.
struct ServedMethod: Sendable {
    let description: MethodDescription
    let waitsForUnlocks: Bool
    let answer: @Sendable (DaemonContext, MethodCall) async throws -> HandlerResult
}

/// An interface as the daemon serves it: the declaration introspection renders, and its methods' answers.
struct ServedInterface: Sendable {
    let description: InterfaceDescription
    let methods: [ServedMethod]

    var name: InterfaceName { description.name }

    /// Declares an interface served by `Adaptor`, made for each call by `adaptor`.
    /// - Parameters:
    ///   - name: the interface name.
    ///   - adaptor: makes the adaptor that answers a call (adaptors are small values over the daemon's context).
    ///   - methods: the methods, each with its answer.
    ///   - properties: the properties (served by `org.freedesktop.DBus.Properties` through the adaptor).
    ///   - signals: the signals the interface emits.
    init<Adaptor>(_ name: InterfaceName, adaptor: @escaping @Sendable (DaemonContext) -> Adaptor,
                  methods: [AdaptorMethod<Adaptor>], properties: [PropertyDescription] = [],
                  signals: [SignalDescription] = []) {
        description = InterfaceDescription(name, methods: methods.map(\.description), properties: properties,
                                           signals: signals)
        self.methods = methods.map { method in
            let answer = method.answer
            return ServedMethod(description: method.description, waitsForUnlocks: method.waitsForUnlocks,
                                answer: { context, call in
                                    try await answer(adaptor(context), call)
                                })
        }
    }

    /// The method named `member`, if the interface has it.
    func method(_ member: MemberName) -> ServedMethod? {
        methods.first { $0.description.name == member }
    }
}
