// SPDX-License-Identifier: Apache-2.0
// Generates the fuzzer's calls: well typed, wrongly typed, deeply nested, huge, misdirected and out of order.

import DBusWire
import SecretServiceTestSupport

/// One generated call and what its answer must be.
struct FuzzCall: Sendable {
    var connection: Int
    var path: ObjectPath
    var interface: String?
    var member: String
    var body: [DBusValue]
    /// Whether only an error reply is acceptable (a wrong signature, an unknown member).
    var mustFail: Bool
    /// The `interface.member` of the tree this call exercises, if any.
    var covers: String?

    var message: Message {
        Message.methodCall(destination: "org.freedesktop.secrets", path: path,
                           interface: interface.map { InterfaceName(unchecked: $0) },
                           member: MemberName(unchecked: member), body: body)
    }
}

struct FuzzCallGenerator {
    let values: FuzzValues
    let connections: Int
    /// Collections hostile calls do not delete, and lock only by chance (well-typed `Lock` calls avoid them).
    static let protected: Set<ObjectPath> = ["/org/freedesktop/secrets/collection/login",
                                             "/org/freedesktop/secrets/aliases/default"]

    /// The next call, drawn from `random` against the current pool of paths.
    func next(paths: FuzzPaths, using random: inout SeededRandom) -> FuzzCall {
        let target = random.pick(FuzzMembers.all)
        let connection = random.below(connections)
        let path = paths.random(target.node, for: connection, using: &random)
        var call = FuzzCall(connection: connection, path: path, interface: target.interface,
                            member: target.member, body: [], mustFail: false, covers: target.key)
        let roll = random.below(100)
        switch roll {
        case 0..<40:
            call.body = wellTyped(target, caller: connection, paths: paths, using: &random)
        case 40..<60:
            call.body = wronglyTyped(target.input, paths: paths, using: &random)
            call.mustFail = true
        case 60..<72:
            // Right signature, arbitrary values: variants hold whatever type came up, so Properties.Set below aims
            // wrongly typed values at real properties.
            call.body = target.input.map { values.value(of: $0, paths: paths, using: &random) }
            if target.member == "Set" {
                call.body[0] = .string(random.pick([FuzzMembers.collection, FuzzMembers.item, FuzzMembers.service]))
                call.body[1] = .string(random.pick(FuzzMembers.propertyNames))
            }
        case 72..<78:
            // Deep nesting: inside a variant argument where there is one, else as an extra argument.
            let nested = values.deeplyNested(depth: 8 + random.below(24), using: &random)
            if let index = target.input.firstIndex(of: .variant) {
                call.body = wellTyped(target, caller: connection, paths: paths, using: &random)
                call.body[index] = .variant(nested)
            } else {
                call.body = wellTyped(target, caller: connection, paths: paths, using: &random) + [nested]
                call.mustFail = true
            }
        case 78..<80:
            call.body = hugeBody(target, caller: connection, paths: paths, using: &random)
            call.mustFail = call.body.map(\.type) != target.input
        case 80..<86:
            // Unknown members and interfaces, and real members without an interface.
            switch random.below(3) {
            case 0:
                call.member = random.pick(["Frobnicate", "Open", "GetSecretz", "Close_", "Ping2"])
                call.covers = nil
                call.mustFail = true
            case 1:
                call.interface = random.pick(["org.example.Nope", "org.freedesktop.Secret.Nope",
                                              "org.freedesktop.DBus.Properties.Nope"])
                call.covers = nil
                call.mustFail = true
            default:
                call.interface = nil
            }
            if call.body.isEmpty { call.body = wellTyped(target, caller: connection, paths: paths, using: &random) }
        default:
            // Everything well typed, aimed at a random object of any kind: other clients' sessions and prompts,
            // closed sessions, completed prompts, deleted items.
            call.path = paths.random(nil, using: &random)
            call.body = wellTyped(target, caller: connection, paths: paths, using: &random)
        }
        // The login collection stays: deleting it would leave most later calls failing at the first check.
        // Collections the fuzzer created itself may be deleted.
        if call.member == "Delete", Self.protected.contains(call.path) {
            call.path = "/org/freedesktop/secrets/collection/nope"
        }
        if FuzzValues.descriptorCount(call.body) > 16 {
            call.body = target.input.map(values.minimal)
            call.mustFail = false
        }
        // libdbus answers Peer itself, and Introspect outside our tree, whatever the arguments; every other call has
        // its signature checked by the daemon.
        let inTree = call.path.rawValue == "/org/freedesktop/secrets"
            || call.path.rawValue.hasPrefix("/org/freedesktop/secrets/")
        if call.interface == FuzzMembers.peer || (call.interface == FuzzMembers.introspectable && !inTree) {
            call.mustFail = false
        }
        return call
    }

    /// Arguments of the right types, with values that are sometimes right too (a plain session, a secret in a known
    /// session) so calls get past the first checks and reach deeper code.
    func wellTyped(_ target: FuzzMember, caller: Int, paths: FuzzPaths, using random: inout SeededRandom)
        -> [DBusValue] {
        switch (target.member, random.chance(50)) {
        case ("OpenSession", true):
            return [.string("plain"), .variant(.string(""))]
        case ("CreateItem", true):
            let label = DictEntry(.string("org.freedesktop.Secret.Item.Label"), .variant(.string("fuzz")))
            return [.dictionary(key: .string, value: .variant, [label]),
                    secret(caller: caller, paths: paths, using: &random), .boolean(random.chance(50))]
        case ("SetSecret", true):
            return [secret(caller: caller, paths: paths, using: &random)]
        case ("GetSecret", true):
            return [.objectPath(paths.random(.session, for: caller, using: &random))]
        case ("GetSecrets", true):
            return [.array(.objectPath, (0..<random.below(4)).map { _ in .objectPath(paths.random(.item, using: &random)) }),
                    .objectPath(paths.random(.session, for: caller, using: &random))]
        case ("Unlock", true):
            return [.array(.objectPath, [.objectPath(paths.random(.collection, using: &random))])]
        case ("Lock", true):
            let path = paths.random(.collection, using: &random)
            let target = Self.protected.contains(path) ? "/org/freedesktop/secrets/collection/nope" : path
            return [.array(.objectPath, [.objectPath(target)])]
        default:
            return target.input.map { values.value(of: $0, paths: paths, using: &random) }
        }
    }

    private func secret(caller: Int, paths: FuzzPaths, using random: inout SeededRandom) -> DBusValue {
        .structure([.objectPath(paths.random(.session, for: caller, using: &random)), .bytes(values.bytes(using: &random)),
                    .bytes(values.bytes(using: &random)), .string(random.pick(["text/plain", "", "x"]))])
    }

    /// A body whose signature is not the member's: one argument changed, one dropped, one added, or all random.
    private func wronglyTyped(_ input: [DBusType], paths: FuzzPaths, using random: inout SeededRandom)
        -> [DBusValue] {
        var types = input
        switch random.below(4) {
        case 0 where !types.isEmpty:
            let index = random.below(types.count)
            var replacement = values.randomType(depth: 2, using: &random)
            while replacement == types[index] { replacement = values.randomType(depth: 2, using: &random) }
            types[index] = replacement
        case 1 where !types.isEmpty:
            types.remove(at: random.below(types.count))
        case 2:
            types.insert(values.randomType(depth: 2, using: &random), at: random.below(types.count + 1))
        default:
            repeat {
                types = (0..<random.below(4)).map { _ in values.randomType(depth: 3, using: &random) }
            } while types == input
        }
        return types.map { values.value(of: $0, paths: paths, using: &random) }
    }

    /// A huge value in place of an argument of a compatible type when there is one, else appended.
    private func hugeBody(_ target: FuzzMember, caller connection: Int, paths: FuzzPaths,
                          using random: inout SeededRandom) -> [DBusValue] {
        var body = wellTyped(target, caller: connection, paths: paths, using: &random)
        let huge = values.huge(using: &random)
        if let index = target.input.firstIndex(of: huge.type) {
            body[index] = huge
        } else if let index = target.input.firstIndex(of: .variant) {
            body[index] = .variant(huge)
        } else {
            body.append(huge)
        }
        return body
    }
}
