// SPDX-License-Identifier: Apache-2.0
// Micro-benchmarks of the paths every Secret Service call takes: marshalling, item AEAD, index lookup, journal append.

import Benchmark
import DBusTransport
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// Wall clock and allocations are both guarded: a regression in either (an extra copy of the item table, a buffer
/// per call) fails `swift package benchmark baseline check`. Wall clock gets a relaxed tolerance (shared machines
/// are noisy); allocation counts are deterministic, so they get a tight one.
func configuration() -> Benchmark.Configuration {
    Benchmark.Configuration(
    metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 10,
    maxDuration: .seconds(2),
    maxIterations: 10_000,
    thresholds: [
        .wallClock: BenchmarkThresholds(relative: [.p50: 25.0]),
        .mallocCountTotal: BenchmarkThresholds(relative: [.p50: 5.0], absolute: [.p50: 5]),
    ])
}

/// A store with `count` items in the in-memory `session` collection, attributes as the system benchmark uses them.
func filledStore(_ count: Int, directory: String? = nil) async throws -> (SecretStore, String) {
    try SecretCrypto.initialize()
    let store = SecretStore(directory: directory,
                            keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 1))
    let collection: String
    if directory != nil {
        collection = try await store.createCollection(label: "bench", alias: "",
                                                      password: try SecretBytes(copying: Array("pw".utf8))).id
    } else {
        collection = try await store.createCollection(label: "bench", inMemory: true).id
    }
    for i in 0..<count {
        _ = try await store.createItem(
            in: collection, label: "bench item \(i)",
            attributes: ["bench": "coffer", "id": "\(i)", "group": "g\(i / 100)"],
            secret: StoredSecret(value: try SecretBytes(copying: Array("password-\(i)".utf8)), contentType: "text/plain"),
            replace: false)
    }
    return (store, collection)
}

/// The reply a GetSecrets of `count` items sends: a{o(oayays)}.
func getSecretsReply(_ count: Int) -> Message {
    let session = ObjectPath(unchecked: "/org/freedesktop/secrets/session/s1")
    let entries = (0..<count).map { i in
        DictEntry(.objectPath(ObjectPath(unchecked: "/org/freedesktop/secrets/collection/login/\(i + 1)")),
                  .structure([.objectPath(session), .bytes(Array(repeating: 7, count: 16)),
                              .bytes(Array(repeating: 9, count: 32)), .string("text/plain")]))
    }
    let body: [DBusValue] = [.dictionary(key: .objectPath, value: .structure([.objectPath, .array(.byte),
                                                                                .array(.byte), .string]), entries)]
    return Message(kind: .methodReturn, serial: 2, replySerial: 1, destination: BusName(unchecked: ":1.7"), body: body)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = configuration()

    Benchmark("Marshal a GetSecrets reply of 1 item", closure: { (benchmark: Benchmark, message: Message) in
        for _ in benchmark.scaledIterations { blackHole(try? MessageCodec.marshal(message)) }
    }, setup: { getSecretsReply(1) })

    Benchmark("Marshal a GetSecrets reply of 100 items", closure: { (benchmark: Benchmark, message: Message) in
        for _ in benchmark.scaledIterations { blackHole(try? MessageCodec.marshal(message)) }
    }, setup: { getSecretsReply(100) })

    Benchmark("Unmarshal a GetSecrets reply of 100 items", closure: { (benchmark: Benchmark, bytes: [UInt8]) in
        for _ in benchmark.scaledIterations { blackHole(try? MessageCodec.unmarshal(bytes)) }
    }, setup: { try MessageCodec.marshal(getSecretsReply(100)) })

    Benchmark("AES-256-GCM seal + open of one item secret", closure: { (benchmark: Benchmark, key: SecretBytes) in
        let plaintext = try! SecretBytes(copying: Array("correct horse battery staple".utf8))
        for _ in benchmark.scaledIterations {
            let nonce = SecureRandom.bytes(count: AES256GCM.nonceByteCount)
            guard let sealed = try? AES256GCM.seal(plaintext, key: key, nonce: nonce, associatedData: [1, 2, 3])
            else { fatalError("seal failed") }
            blackHole(try? AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: [1, 2, 3]))
        }
    }, setup: {
        try SecretCrypto.initialize()
        return try SecureRandom.secretBytes(count: AES256GCM.keyByteCount)
    })

    for count in [100, 10_000] {
        Benchmark("Index lookup (1 match) among \(count) items", closure: {
            (benchmark: Benchmark, state: (SecretStore, String)) async in
            let (store, collection) = state
            for i in benchmark.scaledIterations {
                blackHole(try? await store.search(in: collection, ["bench": "coffer", "id": "\(i % count)"]))
            }
        }, setup: { try await filledStore(count) })
    }

    Benchmark("Journal append: store one item into 1,000 (fsync included)", closure: {
        (benchmark: Benchmark, state: (SecretStore, String)) async in
        let (store, collection) = state
        for i in benchmark.scaledIterations {
            let secret = StoredSecret(value: try! SecretBytes(copying: Array("new-\(i)".utf8)), contentType: "text/plain")
            blackHole(try? await store.createItem(in: collection, label: "new", attributes: ["new": "\(i)"],
                                                  secret: secret, replace: false))
        }
    }, setup: {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("coffer-micro-\(ProcessInfo.processInfo.processIdentifier)").path
        try? FileManager.default.removeItem(atPath: directory)
        return try await filledStore(1_000, directory: directory)
    })

    Benchmark("Password change of a collection of 10,000 items (new master key, every item sealed again, fsync)",
              configuration: .init(maxIterations: 10), closure: { (benchmark: Benchmark, state: (SecretStore, String)) async in
        let (store, collection) = state
        // The same password each time: the master key is replaced and every item sealed again all the same. The
        // key derivation is the cheap one of filledStore, so this measures the re-encryption and the rewrite.
        let password = try! SecretBytes(copying: Array("pw".utf8))
        for _ in benchmark.scaledIterations {
            blackHole(try? await store.changePassword(of: collection, from: password, to: password))
        }
    }, setup: {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("coffer-micro-rekey-\(ProcessInfo.processInfo.processIdentifier)").path
        try? FileManager.default.removeItem(atPath: directory)
        return try await filledStore(10_000, directory: directory)
    })
}
