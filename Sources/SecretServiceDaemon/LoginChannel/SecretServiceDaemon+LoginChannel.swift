// SPDX-License-Identifier: Apache-2.0
// The daemon's side of the login channel: open it at start, apply each request to `login`, close it at the end.

import Logging
import SecretStore

extension SecretServiceDaemon {
    /// The listener for the PAM module, when the configuration names a directory and this daemon keeps files.
    func openLoginChannel() -> LoginChannelListener? {
        guard let directory = configuration.loginChannelDirectory, store.keepsFiles else { return nil }
        let listener = LoginChannelListener.open(directory: directory, logger: logger)
        if let listener { logger.info("listening for the login password", metadata: ["path": "\(listener.path)"]) }
        return listener
    }

    /// Answers the requests one at a time, in order (a change must not overtake the unlock before it), until the
    /// daemon stops; then the listener removes its socket.
    func serveLoginChannel(_ listener: LoginChannelListener) async {
        let keyring = LoginKeyring(store: store, logger: logger)
        await withTaskCancellationHandler {
            for await connection in listener.connections {
                let outcome: LoginOutcome
                switch connection.request {
                case .unlock(let password):
                    outcome = await keyring.unlockOrCreate(with: password)
                case .changePassword(let old, let new):
                    outcome = await keyring.changePassword(from: old, to: new)
                }
                connection.finish(outcome)
                // A login's unlock (or password change) verifies the whole file and derives keys once, as a start-up
                // unlock does; where cofferd was started for the login, it is the rest of start-up.
                releaseStartupPages()
            }
        } onCancel: {
            listener.requestClose()
        }
    }
}
