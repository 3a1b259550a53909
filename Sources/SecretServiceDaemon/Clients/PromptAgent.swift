// SPDX-License-Identifier: Apache-2.0
// `coffer prompt-agent`s: clients that answer password prompts on their terminal, and the registry's part in them.

import DBusWire
import SecretServiceProtocol

/// A registered prompt agent: the object cofferd calls (`io.coffer.PromptAgent` at `path` on `owner`'s connection)
/// and the agent's own encrypted session, in which its answers travel like any secret a client sends.
struct PromptAgent: Sendable {
    var owner: BusName
    var path: ObjectPath
    var session: SecretSession
}

extension ClientRegistry {
    /// Registers `owner`'s agent, replacing one it registered before; the newest agent answers prompts.
    /// - Throws: `noSession` when the session is not the caller's; `invalidArgs` when it is not encrypted, since the
    ///   agent's answers are passwords.
    func registerPromptAgent(owner: BusName, path: ObjectPath, sessionPath: ObjectPath)
        throws(SecretServiceError) {
        guard case .session(let id)? = SecretObjectPath(sessionPath), let session = session(id, ownedBy: owner) else {
            throw .noSession("the session does not exist or belongs to another client")
        }
        guard case .dh = session.algorithm else {
            throw .invalidArgs("a prompt agent needs an encrypted (dh-ietf1024-sha256-aes128-cbc-pkcs7) session")
        }
        promptAgents.removeAll { $0.owner == owner }
        promptAgents.append(PromptAgent(owner: owner, path: path, session: session))
    }

    /// The agent that answers the next prompt: the newest, whose terminal the user most likely sits at.
    var currentPromptAgent: PromptAgent? { promptAgents.last }
}
