// SPDX-License-Identifier: Apache-2.0
// pam_coffer.so for real: pamtester drives a PAM stack with the built module against cofferd on a private bus.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Writing /etc/pam.d and switching to the user (here root, the invoking user) need root; CI runs as root. On a
/// developer machine without root the suite is reported as skipped, with the reason, never as passed.
let runsAsRoot = getuid() == 0

@Suite("PAM module: pam_coffer.so through pamtester", .timeLimit(.minutes(3)),
       .enabled(if: runsAsRoot, "needs root to write /etc/pam.d and run pamtester's stack (CI runs as root)"))
struct PAMModuleTests {
    static let login = DaemonSequence.loginPath

    /// A cofferd without `--unlock` (so without `login`), its PAM service, and our client's environment.
    func withCofferdAndService(_ body: (DaemonSequence, PAMService, ClientEnvironment) async throws -> Void)
        async throws {
        try await withDaemonSequence { daemons in
            _ = try await daemons.start(DaemonSequence.options("pam", loginPassword: nil))
            let service = try PAMService(environment: ["XDG_RUNTIME_DIR": daemons.bus.cofferdRuntimeDirectory],
                                         scratch: daemons.bus.directory)
            defer { service.remove() }
            try await body(daemons, service, ClientEnvironment(bus: daemons.bus))
            await daemons.stop()
        }
    }

    @Test("authenticate + open_session creates login with the password on first login, as the default collection")
    func firstLoginCreatesLogin() async throws {
        try await withCofferdAndService { daemons, service, environment in
            try await withClient(on: daemons.bus) { client async throws in
                #expect(!(try await client.collections().contains(Self.login)))
            }
            let output = try await service.logIn(password: "first login pw 7Hq", in: environment)
            output.expectSuccess("pamtester")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(try await client.collections().contains(Self.login))
                #expect(!(try await client.collectionProperties(Self.login).locked))
                #expect(try await client.readAlias(SecretServiceNames.defaultAlias) == Self.login)
                let item = try await client.createItem(in: Self.login, label: "pam", attributes: ["pam": "1"],
                                                       secret: secret("stored after a PAM login"), replace: false)
                #expect(try await client.secret(of: item).text == "stored after a PAM login")
            }
            #expect(FileManager.default.fileExists(atPath: daemons.collectionFile("login").path))
        }
    }

    @Test("a later login unlocks login; a wrong password leaves it locked and its file unchanged")
    func loginUnlocksAndWrongPasswordChangesNothing() async throws {
        try await withCofferdAndService { daemons, service, environment in
            let password = "unlock pw Vb41"
            try await service.logIn(password: password, in: environment).expectSuccess("first login")
            let item = try await withClient(on: daemons.bus) { client async throws in
                let item = try await client.createItem(in: Self.login, label: "kept", attributes: ["pam": "2"],
                                                       secret: secret("kept across logins"), replace: false)
                #expect(try await client.lock([Self.login]) == [Self.login])
                return item
            }
            let before = try daemons.fileBytes("login")

            // The module is optional in the stack: the login itself goes on, the collection stays as it was.
            try await service.logIn(password: "not the password", in: environment).expectSuccess("wrong login")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(try await client.collectionProperties(Self.login).locked)
                let found = try await client.searchItems(["pam": "2"])
                #expect(found.locked == [item] && found.unlocked.isEmpty, "\(found)")
            }
            #expect(try daemons.fileBytes("login") == before)

            try await service.logIn(password: password, in: environment).expectSuccess("second login")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(!(try await client.collectionProperties(Self.login).locked))
                #expect(try await client.secret(of: item).text == "kept across logins")
            }
        }
    }

    @Test("chauthtok re-keys login: the old password is refused afterwards, the new one unlocks, the items stay")
    func changeFollowsLoginPassword() async throws {
        try await withCofferdAndService { daemons, service, environment in
            let old = "old pw Rt90", new = "new pw Kz12"
            try await service.logIn(password: old, in: environment).expectSuccess("first login")
            let item = try await withClient(on: daemons.bus) { client async throws in
                try await client.createItem(in: Self.login, label: "rekeyed", attributes: ["pam": "3"],
                                            secret: secret("survives the change"), replace: false)
            }
            let before = try daemons.fileBytes("login")
            try await service.changePassword(from: old, to: new, in: environment).expectSuccess("chauthtok")
            #expect(try daemons.fileBytes("login") != before, "the file was not rewritten")

            try await withClient(on: daemons.bus) { client async throws in
                #expect(try await client.lock([Self.login]) == [Self.login])
            }
            try await service.logIn(password: old, in: environment).expectSuccess("login with the old password")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(try await client.collectionProperties(Self.login).locked, "the old password still unlocks")
            }
            try await service.logIn(password: new, in: environment).expectSuccess("login with the new password")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(!(try await client.collectionProperties(Self.login).locked))
                #expect(try await client.secret(of: item).text == "survives the change")
            }
        }
    }

    @Test("chauthtok with a wrong old password changes nothing: the file stays, the old password still unlocks")
    func changeWithWrongOldPasswordChangesNothing() async throws {
        try await withCofferdAndService { daemons, service, environment in
            let password = "kept pw Lm33"
            try await service.logIn(password: password, in: environment).expectSuccess("first login")
            let before = try daemons.fileBytes("login")
            try await service.changePassword(from: "wrong old pw", to: "never set pw", in: environment)
                .expectSuccess("chauthtok")
            #expect(try daemons.fileBytes("login") == before)
            try await withClient(on: daemons.bus) { client async throws in
                #expect(try await client.lock([Self.login]) == [Self.login])
            }
            try await service.logIn(password: "never set pw", in: environment).expectSuccess("login, new password")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(try await client.collectionProperties(Self.login).locked)
            }
            try await service.logIn(password: password, in: environment).expectSuccess("login, old password")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(!(try await client.collectionProperties(Self.login).locked))
            }
        }
    }

    @Test("the login channel answers nothing to another user, even through an opened socket; refuses a bad version and an empty password")
    func channelRefusesOtherUsers() async throws {
        try await withCofferdAndService { daemons, _, environment in
            let directory = daemons.bus.cofferdRuntimeDirectory + "/coffer"
            // Open the way the directory normally closes, so only the peer-credential check stands in the way.
            chmod(daemons.bus.directory.path, 0o711)
            chmod(daemons.bus.cofferdRuntimeDirectory, 0o755)
            chmod(directory, 0o755)
            chmod(directory + "/control", 0o666)
            // Sends one unlock request (version, password) and prints the answer byte, or "none" when the
            // connection was closed without one.
            let send = """
                import socket, struct, sys
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                pw = sys.argv[3].encode()
                try:
                    s.sendall(bytes([int(sys.argv[2]), 1]) + struct.pack(">I", len(pw)) + pw)
                    answer = s.recv(1)
                    print(answer[0] if answer else "none", end="")
                except OSError:  # closed on us: refused before reading
                    print("none", end="")
                """
            let control = directory + "/control"
            TestLogArchive.register(["foreign pw Zk70", "bad version pw"])
            let foreign = try await environment.run(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", send,
                                     control, "1", "foreign pw Zk70"])
            #expect(foreign.status == 0 && foreign.text == "none", "\(foreign.text) \(foreign.stderr)")
            let badVersion = try await environment.run("/usr/bin/python3", ["-c", send, control, "9", "bad version pw"])
            #expect(badVersion.status == 0 && badVersion.text == "6", "\(badVersion.text) \(badVersion.stderr)")
            let empty = try await environment.run("/usr/bin/python3", ["-c", send, control, "1", ""])
            #expect(empty.status == 0 && empty.text == "6", "an empty password created login: \(empty.text)")
            try await withClient(on: daemons.bus) { client async throws in
                #expect(!(try await client.collections().contains(Self.login)))
            }
        }
    }

    @Test("a cofferd that replaces another (--replace) takes the login channel over once the old one is gone")
    func replacementTakesChannelOver() async throws {
        try await TestBus.withPrivateBus { bus in
            let first = try await DaemonHarness.start(.subprocess, on: bus, arguments: ["--allow-replacement"],
                                                      loginPassword: nil)
            let replacement = try await DaemonHarness.startReplacing(on: bus)
            #expect(await first.waitForExit() == .exited(0))
            // Calls wait until the replacement has the data directory and its collections, which it opens after
            // the channel: once this answers, the channel is the replacement's.
            try await withClient(on: bus) { client async throws in
                #expect(!(try await client.collections().contains(Self.login)))
            }
            let service = try PAMService(environment: ["XDG_RUNTIME_DIR": bus.cofferdRuntimeDirectory],
                                         options: ["no_autostart"], scratch: bus.directory)
            defer { service.remove() }
            try await service.logIn(password: "replaced pw Ud83", in: ClientEnvironment(bus: bus))
                .expectSuccess("pamtester")
            try await withClient(on: bus) { client async throws in
                #expect(!(try await client.collectionProperties(Self.login).locked))
            }
            #expect(replacement.log().contains("listening for the login password"), "\(replacement.log())")
            #expect(await replacement.stop() == .exited(0))
        }
    }

    @Test("for another user, the module switches to that user; its cofferd creates, unlocks and (when the user asks, not root) re-keys login")
    func anotherUsersLogin() async throws {
        let user = try await TemporaryUser()
        do {
            try await anotherUsersLogin(user)
        } catch {
            await user.remove()
            throw error
        }
        await user.remove()
    }

    private func anotherUsersLogin(_ user: TemporaryUser) async throws {
        let bus = try TestBus(otherUsers: true)
        defer { bus.stop() }
        // The user reaches the bus (through the scratch directory) and owns its HOME and runtime directory.
        chmod(bus.directory.path, 0o711)
        let socket = try #require(bus.address.split(separator: ",").first?.split(separator: "=", maxSplits: 1).last)
        chmod(String(socket), 0o777)
        for path in ["home", "home/.local", "home/.local/share", "home/.config", "home/.cache", "runtime"] {
            try user.makeDirectory(bus.directory.appendingPathComponent(path))
        }
        var options = DaemonSequence.options("pam-user", loginPassword: nil)
        options.launcher = ["/usr/bin/setpriv", "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups"]
        let daemon = try await DaemonHarness.start(on: bus, options: options)
        let service = try PAMService(environment: ["XDG_RUNTIME_DIR": bus.cofferdRuntimeDirectory],
                                     scratch: bus.directory)
        defer { service.remove() }
        let environment = ClientEnvironment(bus: bus)
        let old = "user pw Nf25", new = "user new pw Dp64"

        try await service.logIn(password: old, user: user.name, in: environment).expectSuccess("login")
        var info = stat()
        #expect(stat(daemon.collectionFile("login").path, &info) == 0 && info.st_uid == user.uid,
                "login was not created by the user's cofferd")
        // Root resetting the user's password (as `passwd user` does) has no old password to re-key with.
        let created = daemon.collectionFile("login").path
        let before = try Data(contentsOf: URL(fileURLWithPath: created))
        try await service.changePassword(from: old, to: new, user: user.name, in: environment)
            .expectSuccess("chauthtok by root")
        #expect(try Data(contentsOf: URL(fileURLWithPath: created)) == before, "root's reset re-keyed login")
        try await service.changePassword(from: old, to: new, runAs: user, in: environment)
            .expectSuccess("chauthtok by the user")
        try await withClient(on: bus) { client async throws in
            #expect(try await client.lock([Self.login]) == [Self.login])
        }
        try await service.logIn(password: old, user: user.name, in: environment).expectSuccess("old password")
        try await withClient(on: bus) { client async throws in
            #expect(try await client.collectionProperties(Self.login).locked, "the old password still unlocks")
        }
        try await service.logIn(password: new, user: user.name, in: environment).expectSuccess("new password")
        try await withClient(on: bus) { client async throws in
            #expect(!(try await client.collectionProperties(Self.login).locked))
        }
        #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
    }
}

@Suite("PAM module: starting cofferd at login", .timeLimit(.minutes(3)),
       .enabled(if: runsAsRoot, "needs root to write /etc/pam.d and run pamtester's stack (CI runs as root)"))
struct PAMModuleStartTests {
    static let nameOwnerRule =
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
        + "arg0='\(SecretServiceNames.busName.rawValue)'"

    @Test("with no cofferd running, open_session starts one with the password, which creates and unlocks login")
    func sessionStartsCofferd() async throws {
        try await TestBus.withPrivateBus { bus in
            let home = bus.directory.appendingPathComponent("pam-home")
            let runtime = bus.directory.appendingPathComponent("pam-runtime")
            for directory in [home, runtime] {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
            // The session's environment, as pam_systemd and the login manager would leave it; nothing points at
            // the real home or runtime directory.
            // Under `make test-asan`/`test-tsan` the cofferd started is instrumented: it reports as the tests do.
            let sanitizers = ClientEnvironment(bus: bus).variables.filter { $0.key.hasSuffix("SAN_OPTIONS") }
            let service = try PAMService(
                environment: ["XDG_RUNTIME_DIR": runtime.path, "DBUS_SESSION_BUS_ADDRESS": bus.address,
                              "HOME": home.path, "XDG_DATA_HOME": home.path + "/.local/share",
                              "XDG_CONFIG_HOME": home.path + "/.config"].merging(sanitizers) { $1 },
                options: ["cofferd=\(try DaemonHarness.executableURL().path)"], scratch: bus.directory)
            defer { service.remove() }
            let watcher = try await bus.connect()
            try await watcher.addMatch(Self.nameOwnerRule)

            try await service.logIn(password: "autostart pw Qe58", in: ClientEnvironment(bus: bus))
                .expectSuccess("pamtester")
            let owner = try await withDeadline(waitingFor: "the cofferd pam_coffer started to own the name") {
                await Self.nextOwner(on: watcher)
            }
            #expect(owner != "")
            let pid = try #require(try await watcher.processID(of: SecretServiceNames.busName))
            do {
                try await withClient(on: bus) { client async throws in
                    #expect(try await client.readAlias(SecretServiceNames.defaultAlias) == DaemonSequence.loginPath)
                    #expect(!(try await client.collectionProperties(DaemonSequence.loginPath).locked))
                }
                #expect(FileManager.default.fileExists(atPath: home.path + "/.local/share/coffer/login.coffer"))
                #expect(FileManager.default.fileExists(atPath: runtime.path + "/coffer/control"),
                        "the started cofferd does not listen for later logins")
            } catch {
                kill(pid_t(pid), SIGKILL)
                throw error
            }
            // Not our child: stop it and wait until it has let go of the name.
            kill(pid_t(pid), SIGTERM)
            let released = try await withDeadline(waitingFor: "the started cofferd to exit") {
                await Self.nextOwner(on: watcher)
            }
            #expect(released == "")
            await watcher.close()
        }
    }

    /// The next owner `org.freedesktop.secrets` gets on the bus (`""` when it loses its owner); `nil` when the
    /// stream ends first.
    static func nextOwner(on watcher: Connection) async -> String? {
        for await message in watcher.messages
        where message.kind == .signal && message.member == "NameOwnerChanged" && message.body.count == 3 {
            guard message.body[0].string == SecretServiceNames.busName.rawValue else { continue }
            return message.body[2].string
        }
        return nil
    }
}
