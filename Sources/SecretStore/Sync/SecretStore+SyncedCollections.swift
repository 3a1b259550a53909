// SPDX-License-Identifier: Apache-2.0
// Which collections are synchronized, for clients that route items by it (the Keychain library's
// kSecAttrSynchronizable).

#if canImport(Glibc)
import Glibc
#endif

extension SecretStore {
    /// The collections that are synchronized, locked or not: those with a sync state in the data directory, and
    /// those a `sync-folder` setting names (made synchronized at their next unlock with their password, which
    /// writes every item they hold to the journal, so an item added now travels too).
    public func synchronizedCollectionIDs() -> [String] {
        collections.keys.filter { id in
            if configuredSyncFolders[id] != nil || syncLinks[id] != nil { return true }
            guard let path = syncStatePath(of: id) else { return false }
            var status = stat()
            return lstat(path, &status) == 0
        }.sorted()
    }
}
