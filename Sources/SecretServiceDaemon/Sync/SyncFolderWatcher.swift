// SPDX-License-Identifier: Apache-2.0
// Watching synchronized collections' folders with inotify: a journal that changes is merged at once, no polling.

#if canImport(Glibc)
import Glibc
#endif
import Logging
import SecretStore

/// Watches the directory of every synchronized collection whose journal the store opened, and asks the store to
/// merge a collection's other journals whenever a journal file in its directory is written, renamed into place
/// or removed. The store merges only unlocked collections; what arrives while one is locked is merged at its unlock.
///
/// One inotify descriptor, made when the first synchronized collection is opened: a user has few inotify instances
/// (128 by default), and a daemon without synchronized collections keeps none. A thread of its own waits on it
/// (``InotifyReader``). The watch table belongs to this actor.
actor SyncFolderWatcher {
    private let store: SecretStore
    private let logger: Logger
    private var reader: InotifyReader?
    /// Which collections each watch stands for (one directory can serve several local collections only in theory,
    /// but a set costs nothing).
    private var collections: [Int32: Set<String>] = [:]
    /// The journals this daemon writes itself: closing them after a sync must not start a merge.
    private var ownJournals: Set<String> = []
    private var reportedUnavailable = false

    init(store: SecretStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Watches until cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            for await opened in store.openedSyncFolders {
                guard let reader = startedReader(in: &group), watch(opened, with: reader) else { continue }
                // A journal that arrived between the store opening the folder and the watch existing gave no
                // event: one merge now catches up on it.
                await store.mergeSyncArrivals(of: opened.collection)
            }
            group.cancelAll()
        }
        reader?.stop()
    }

    /// The inotify reader, made and followed (in `group`) the first time a synchronized collection is opened;
    /// `nil` when inotify is unavailable (logged once: such collections are then merged at unlock).
    private func startedReader(in group: inout TaskGroup<Void>) -> InotifyReader? {
        if let reader { return reader }
        guard let made = InotifyReader() else {
            if !reportedUnavailable {
                reportedUnavailable = true
                logger.error("inotify is unavailable; other devices' changes are merged only at unlock",
                             metadata: ["error": "\(String(cString: strerror(errno)))"])
            }
            return nil
        }
        reader = made
        let changes = made.start()
        group.addTask {
            for await change in changes {
                for collection in await self.collections(of: change) {
                    await self.store.mergeSyncArrivals(of: collection)
                }
            }
        }
        return made
    }

    /// Adds the watch of `opened`'s directory; `false` (logged) when the directory cannot be watched.
    private func watch(_ opened: OpenedSyncFolder, with reader: InotifyReader) -> Bool {
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE) | UInt32(IN_ONLYDIR)
        let watch = inotify_add_watch(reader.descriptor, opened.directory, mask)
        guard watch >= 0 else {
            logger.error("a sync folder cannot be watched; its changes are merged only at unlock", metadata: [
                "secret.collection": "\(opened.collection)", "sync.folder": "\(opened.directory)",
                "error": "\(String(cString: strerror(errno)))",
            ])
            return false
        }
        collections[watch, default: []].insert(opened.collection)
        ownJournals.insert(opened.ownJournal)
        return true
    }

    private func collections(of change: JournalChange) -> [String] {
        guard !ownJournals.contains(change.name) else { return [] }
        return collections[change.watch].map { $0.sorted() } ?? []
    }
}

/// An event about a journal file: the watch of its directory and its name.
struct JournalChange: Sendable, Equatable {
    let watch: Int32
    let name: String
}

/// The inotify descriptor and the thread that reads it, yielding each event about a journal file. Names other
/// than `*.journal` (an engine's temporary files, wraps) wake nobody.
final class InotifyReader: Sendable {
    let descriptor: Int32
    /// A socket pair: ``stop()`` sends on `wakeWriter` and closes it, which wakes the thread; the thread closes the
    /// rest and ends. A socket, so that a send after the thread is gone fails instead of raising SIGPIPE.
    private let wakeReader: Int32
    private let wakeWriter: Int32

    init?() {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return nil
        }
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        (wakeReader, wakeWriter) = (ends[0], ends[1])
        guard descriptor >= 0 else {
            for end in ends { Glibc.close(end) }
            return nil
        }
    }

    /// Starts the reading thread, which runs until ``stop()``.
    func start() -> AsyncStream<JournalChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: JournalChange.self, bufferingPolicy: .unbounded)
        let (descriptor, wake) = (descriptor, wakeReader)
        DetachedThread.start {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            while true {
                watched[0].revents = 0
                watched[1].revents = 0
                if poll(&watched, 2, -1) < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if watched[1].revents != 0 { break }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                for change in Self.journalChanges(in: buffer[..<count]) { continuation.yield(change) }
            }
            continuation.finish()
            Glibc.close(descriptor)
            Glibc.close(wake)
        }
        return stream
    }

    /// Ends the thread (once; the watcher calls it when it stops).
    func stop() {
        var byte: UInt8 = 1
        _ = Glibc.send(wakeWriter, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        Glibc.close(wakeWriter)
    }

    /// The events in `bytes` that name a journal, each once: `struct inotify_event` is a watch (i32), a mask, a
    /// cookie and a name length (u32 each), then the name, padded with NULs.
    static func journalChanges(in bytes: ArraySlice<UInt8>) -> [JournalChange] {
        var changes: [JournalChange] = []
        var offset = bytes.startIndex
        func u32(_ at: Int) -> UInt32 {
            bytes[at..<at + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        while offset + 16 <= bytes.endIndex {
            let watch = Int32(bitPattern: u32(offset))
            let length = Int(u32(offset + 12))
            let end = min(offset + 16 + length, bytes.endIndex)
            let name = String(decoding: bytes[(offset + 16)..<end].prefix { $0 != 0 }, as: UTF8.self)
            let change = JournalChange(watch: watch, name: name)
            if name.hasSuffix(".journal"), !name.hasPrefix("."), !changes.contains(change) { changes.append(change) }
            offset = end
        }
        return changes
    }
}
