// SPDX-License-Identifier: Apache-2.0
// Unlocking collections at start with the systemd credentials the unit passes (LoadCredentialEncrypted=).

#if canImport(Glibc)
import Glibc
#endif
import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// Reads `$CREDENTIALS_DIRECTORY/coffer-<collection>` for each persistent collection and unlocks the collection
/// with it (a systemd-credential key slot). systemd decrypts the credential, bound to the TPM2 or the host key,
/// into a directory only this service can read; the key goes from there straight into secure memory and is wiped
/// once used. A missing credential is normal (not every collection has one); one that opens no slot is logged.
struct CredentialUnlock {
    let directory: String
    let store: SecretStore
    let logger: Logger

    /// The most a credential file may hold; keys are 32 bytes.
    static let maximumBytes = 4096

    func run() async {
        for id in await store.collectionIDs() {
            guard (try? await store.needsPassword(id)) == true,
                  (try? await store.collectionInfo(id).isLocked) == true else { continue }
            let path = directory + "/" + SecretServiceNames.credentialName(of: id)
            let key: SecretBytes
            switch Self.read(path) {
            case .missing: continue
            case .unreadable(let reason):
                logger.error("cannot read the collection's credential", metadata: [
                    "secret.collection": "\(id)", "path": "\(path)", "reason": "\(reason)"])
                continue
            case .key(let bytes): key = bytes
            }
            defer { key.wipe() }
            do {
                // Not announced: the name is not claimed yet, so no client can hold a proxy.
                if try await store.unlock(id, slotKey: key, announcing: false) {
                    logger.info("unlocked with its systemd credential", metadata: ["secret.collection": "\(id)"])
                } else {
                    logger.error("the systemd credential opens no key slot of the collection; it stays locked",
                                 metadata: ["secret.collection": "\(id)"])
                }
            } catch {
                logger.error("unlocking with the systemd credential failed", metadata: [
                    "secret.collection": "\(id)", "reason": "\(error)"])
            }
        }
    }

    enum ReadResult {
        case missing
        case unreadable(String)
        case key(SecretBytes)
    }

    /// Reads a credential file into secure memory: a regular file, not followed through a link, read whole.
    static func read(_ path: String) -> ReadResult {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            return errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .unreadable("not a regular file") }
        guard info.st_size > 0, info.st_size <= maximumBytes else { return .unreadable("size \(info.st_size) bytes") }
        do {
            let key = try SecretBytes(count: Int(info.st_size))
            var length = 0
            key.withUnsafeMutableBytes { raw in
                while length < raw.count {
                    let count = Glibc.read(fd, raw.baseAddress! + length, raw.count - length)
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    length += count
                }
            }
            guard length == key.count else {
                key.wipe()
                return .unreadable("short read")
            }
            return .key(key)
        } catch {
            return .unreadable("\(error)")
        }
    }
}
