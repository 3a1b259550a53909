// SPDX-License-Identifier: Apache-2.0
// The daemon as a service: owns the bus name, serves calls, and shuts down gracefully.

#if canImport(Glibc)
import Glibc
#endif
import DBusTransport
import DBusWire
import SecretCrypto
public import Logging
import SecretServiceProtocol
public import ServiceLifecycle
public import SecretStore

/// Runs the Secret Service on a bus until the connection drops, the name is taken over, or graceful shutdown.
public final class SecretServiceDaemon: Service {
    private let configuration: DaemonConfiguration
    private let logger: Logger
    /// The state owner, exposed so an embedding process (tests, tools) can inspect it.
    public let store: SecretStore
    private let ready: AsyncStream<String>.Continuation
    /// Yields the daemon's unique bus name once it owns `org.freedesktop.secrets` and serves calls.
    public let readiness: AsyncStream<String>

    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        // The store stamps uses on the clock the AutoLocker sleeps on.
        self.store = SecretStore(directory: configuration.dataDirectory,
                                 keyDerivation: configuration.keyDerivation, usageClock: UsageClock(ContinuousClock()),
                                 logger: logger)
        (readiness, ready) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public func run() async throws {
        let connection = try await connect()
        let router = Router(store: store, prompter: configuration.prompter,
                            sender: ConnectionSender(connection: connection, logger: logger),
                            clientLimits: configuration.clientLimits, logger: logger)
        try await connection.registerObjectTree(at: SecretServiceNames.servicePath)
        try await connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'")
        try await bootstrapCollections()
        Self.returnFreedMemory()
        try await claimName(on: connection)
        logger.info("serving org.freedesktop.secrets", metadata: ["dbus.unique": "\(connection.uniqueName)"])
        ready.yield(connection.uniqueName.rawValue)
        ready.finish()

        let (events, eventSink) = AsyncStream.makeStream(of: PumpEvent.self)
        // Calls, the store and the signals all run on the connection's loop thread: a call then crosses no thread
        // between libdbus and its reply (thread wake-ups dominated the cost of a lookup). The store runs its
        // Argon2id work on the global executor, so an unlock does not stall the bus.
        await withTaskExecutorPreference(connection.taskExecutor) {
        await withTaskGroup(of: Void.self) { background in
            background.addTask {
                for await message in connection.messages { eventSink.yield(.message(message)) }
                eventSink.yield(.disconnected)
            }
            background.addTask { await router.publishChanges() }
            if configuration.autoLock.locksAnything {
                let autoLocker = AutoLocker(store: store, policy: configuration.autoLock, clock: ContinuousClock(),
                                            logger: logger)
                background.addTask { await autoLocker.run() }
            }
            await withGracefulShutdownHandler {
                await self.serve(events, router: router, connection: connection)
            } onGracefulShutdown: {
                eventSink.yield(.shutdown)
            }
            await connection.close()
            background.cancelAll()
        }
        }
        logger.info("stopped")
    }

    /// What the pump reacts to: incoming messages, the bus going away, or a shutdown request.
    private enum PumpEvent: Sendable {
        case message(Message)
        case disconnected
        case shutdown
    }

    /// Dispatches calls concurrently until told to stop, then waits for calls in flight to be answered.
    private func serve(_ events: AsyncStream<PumpEvent>, router: Router, connection: Connection) async {
        await withDiscardingTaskGroup { calls in
            loop: for await event in events {
                switch event {
                case .message(let message) where message.kind == .methodCall:
                    // No call takes a descriptor; closing whatever a client attached keeps our table from filling.
                    calls.addTask {
                        await router.handle(message)
                        message.closeReceivedUnixFileDescriptors()
                    }
                case .message(let message):
                    message.closeReceivedUnixFileDescriptors()
                    if await handleBusSignal(message, router: router, connection: connection) { break loop }
                case .disconnected:
                    logger.info("the bus connection closed")
                    break loop
                case .shutdown:
                    logger.info("shutting down")
                    await router.dismissAllPrompts()
                    // Release the name first so new clients reach a successor while answers in flight go out.
                    try? await connection.releaseName(SecretServiceNames.busName)
                    break loop
                }
            }
        }
    }

    /// Reacts to bus signals; returns `true` when the daemon must stop (its name was taken over).
    private func handleBusSignal(_ message: Message, router: Router, connection: Connection) async -> Bool {
        guard message.sender?.rawValue == "org.freedesktop.DBus", message.interface?.rawValue == "org.freedesktop.DBus"
        else { return false }
        switch message.member?.rawValue {
        case "NameOwnerChanged":
            guard message.body.count == 3, let name = message.body[0].string, let newOwner = message.body[2].string,
                  newOwner.isEmpty, name.hasPrefix(":"), let vanished = BusName(name)
            else { return false }
            await router.clientVanished(vanished)
            return false
        case "NameLost":
            guard message.body.first?.string == SecretServiceNames.busName.rawValue else { return false }
            logger.notice("another provider took over org.freedesktop.secrets; exiting")
            return true
        default:
            return false
        }
    }

    private func connect() async throws -> Connection {
        do {
            if let address = configuration.busAddress {
                return try await Connection.connect(address: address, logger: logger)
            }
            return try await Connection.connectToSessionBus(logger: logger)
        } catch {
            throw DaemonError.noBus("\(error)")
        }
    }

    private func claimName(on connection: Connection) async throws {
        var flags: RequestNameFlags = [.allowReplacement, .doNotQueue]
        if configuration.replace { flags.insert(.replaceExisting) }
        switch try await connection.requestName(SecretServiceNames.busName, flags: flags) {
        case .primaryOwner, .alreadyOwner:
            return
        case .exists, .inQueue:
            let owner = try? await connection.nameOwner(of: SecretServiceNames.busName)
            throw DaemonError.nameTaken(owner: owner?.rawValue)
        }
    }

    /// Loads the collection files, sets up the in-memory `session` collection, and applies `--unlock`: the login
    /// password unlocks `login`, or creates it on first start. `default` points at `login` when it exists and at
    /// nothing else was chosen; without files it points at `session`.
    /// Verifying the collection files leaves their transient buffers (whole files, decoded records) in the heap;
    /// glibc's `malloc_trim` hands that memory back before serving, so the resident size is what the daemon keeps
    /// (at 10,000 items 44 MB instead of 64). Looked up at run time: `malloc.h` is not part of Swift's Glibc module.
    private static func returnFreedMemory() {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        _ = trim(0)
        #endif
    }

    private func bootstrapCollections() async throws {
        for problem in try await store.loadCollections() {
            logger.error("collection file unavailable; it is left untouched",
                         metadata: ["secret.collection": "\(problem.id)", "path": "\(problem.path)",
                                    "reason": "\(problem.reason)"])
        }
        let session = SecretServiceNames.sessionCollection
        _ = try await store.createCollection(label: "Session", alias: session, inMemory: true, preferredID: session)
        let login = "login"
        if let password = configuration.loginPassword {
            // Nothing needs the password after this: wipe it rather than keep it readable in memory for the
            // daemon's whole life (the configuration, and so the SecretBytes, live as long as the daemon).
            defer { password.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
            if await store.collectionIDs().contains(login) {
                do {
                    // Not announced: the name is not claimed yet, so no client can hold a proxy, and 10,000 items
                    // would mean 40,000 signals delaying the first answers by seconds.
                    if try await !store.unlock(login, password: password, announcing: false) {
                        logger.error("the password given with --unlock does not unlock the login collection")
                    }
                } catch {
                    // The file failed verification; the store logged why and took it out of service. The other
                    // collections are served regardless.
                }
            } else if await store.unavailableCollections().contains(where: { $0.id == login }) {
                logger.error("the login collection's file is unavailable; not creating a new one over it")
            } else {
                _ = try await store.createCollection(label: "Login", alias: "", password: password, preferredID: login)
                logger.info("created the login collection")
            }
        }
        if await store.resolveAlias(SecretServiceNames.defaultAlias) == nil {
            if await store.collectionIDs().contains(login) {
                try await store.setAlias(SecretServiceNames.defaultAlias, to: login)
            } else if !store.keepsFiles {
                try await store.setAlias(SecretServiceNames.defaultAlias, to: session)
            }
        }
    }
}

/// Delivers the router's messages on the bus connection.
struct ConnectionSender: MessageSender {
    let connection: Connection
    let logger: Logger

    func deliver(_ message: Message) async {
        do {
            try await connection.send(message)
        } catch {
            logger.warning("could not send a message", metadata: ["error": "\(error)"])
        }
    }

    func isOnBus(_ name: BusName) async -> Bool {
        do {
            return try await connection.nameOwner(of: name) != nil
        } catch {
            logger.warning("could not ask the bus whether a client is connected", metadata: ["error": "\(error)"])
            return true
        }
    }
}
