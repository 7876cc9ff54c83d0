package org.meshjava.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference journal (§2.2): an append-only file of one JSON record per line.
 *
 * <p><b>Exclusive access.</b> Opening takes an OS-level exclusive lock ({@link
 * FileChannel#tryLock()}) on a sidecar file, {@code <journal>.lock}, which the operating system
 * releases when the process dies, so a crash leaves nothing to clean up. A second opener, in this
 * process or another, fails with {@link JournalException.Reason#LOCKED}; where the platform cannot
 * lock at all, opening fails with {@link JournalException.Reason#UNLOCKABLE} rather than run
 * unprotected.
 *
 * <p>Design note. The lock lives on a sidecar rather than on the journal itself because POSIX
 * record locks belong to the process and are dropped when <em>any</em> descriptor of the file
 * closes: reading the journal with an ordinary stream (as recovery, or an inspector in the same
 * process, does) would silently release a lock taken on the journal file. Nothing but this class
 * opens the sidecar, and an in-process registry refuses a second opener before it opens a
 * descriptor that could, on closing, release the holder's lock.
 *
 * <p><b>Recovery.</b> Opening reads every record and checks the chain; a final line without a
 * newline is an append cut short and is dropped (truncated, with a log line). A broken chain
 * refuses to open, naming the record.
 *
 * <p><b>Group commit.</b> {@link #enqueue} fixes a record's sequence and chain under a short lock
 * and queues its bytes; {@link Pending#await()} makes them durable. One waiter at a time leads: it
 * writes every queued line and calls {@link FileChannel#force(boolean)} once, while the others
 * sleep and are all woken when that sync completes, so concurrent appends share a sync; none
 * returns before its own bytes were forced. A failed write
 * or sync fails the journal: every append not yet durable, and every later one, throws {@link
 * JournalException.Reason#FAILED}.
 *
 * <p>Thread-safe.
 */
public final class FileJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(FileJournal.class);

  /** Lock files held by journals open in this process (see the design note). */
  private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final Path path;
  private final FileChannel channel;
  private final Path lockPath;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final List<JournalRecord> recovered;

  private final Object queueLock = new Object();
  private final RecordChain chain;
  private final List<RecordChain.Encoded> queue = new ArrayList<>();
  private boolean closed;
  private JournalException failure;

  private final Object syncMonitor = new Object();
  private boolean syncing;
  private volatile long durableThrough;

  private FileJournal(
      Path path,
      FileChannel channel,
      Path lockPath,
      FileChannel lockChannel,
      FileLock lock,
      JournalFile.Recovered recovered) {
    JournalFile.Contents contents = recovered.contents();
    this.path = path;
    this.channel = channel;
    this.lockPath = lockPath;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.recovered = contents.records();
    this.chain = new RecordChain(recovered.codec(), contents.records().size(), contents.lastHash());
    this.durableThrough = contents.records().size() - 1;
  }

  /**
   * Opens (creating if absent) the journal at {@code path}, locks it, and recovers its records.
   *
   * @throws JournalException {@code LOCKED} if another steward holds it, {@code UNLOCKABLE} if no
   *     lock can be had, {@code CORRUPT} naming the first bad record, {@code IO}
   */
  public static FileJournal open(Path path) throws JournalException {
    Path lockPath;
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Path sidecar = path.resolveSibling(path.getFileName() + ".lock");
      if (!Files.exists(sidecar)) {
        Files.newByteChannel(sidecar, StandardOpenOption.CREATE, StandardOpenOption.WRITE).close();
      }
      lockPath = sidecar.toRealPath();
    } catch (IOException e) {
      throw new JournalException(JournalException.Reason.IO, "cannot open " + path + ": " + e.getMessage(), e);
    }
    if (!HELD.add(lockPath)) {
      throw new JournalException(
          JournalException.Reason.LOCKED, "journal " + path + " is held by another steward in this process", null);
    }
    FileChannel lockChannel = null;
    FileLock lock = null;
    try {
      lockChannel = FileChannel.open(lockPath, StandardOpenOption.WRITE);
      lock = lockChannel.tryLock();
    } catch (IOException | UnsupportedOperationException | OverlappingFileLockException e) {
      closeQuietly(lockChannel);
      HELD.remove(lockPath);
      throw new JournalException(
          JournalException.Reason.UNLOCKABLE,
          "cannot take an exclusive lock on journal " + path + " (" + e.getMessage()
              + "); refusing to run without one (§2.2)", e);
    }
    if (lock == null) {
      closeQuietly(lockChannel);
      HELD.remove(lockPath);
      throw new JournalException(
          JournalException.Reason.LOCKED, "journal " + path + " is held by another steward process", null);
    }
    FileChannel ch = null;
    try {
      ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      JournalFile.Recovered recovered = JournalFile.recover(path);
      JournalFile.Contents contents = recovered.contents();
      if (contents.tornTail() > 0) {
        LOG.warn("journal {}: dropping a final line of {} bytes with no newline (an append cut short)",
            path, contents.tornTail());
        ch.truncate(contents.goodLength());
        ch.force(true);
      }
      ch.position(contents.goodLength());
      return new FileJournal(path, ch, lockPath, lockChannel, lock, recovered);
    } catch (JournalException e) {
      closeQuietly(ch);
      release(lockPath, lock, lockChannel);
      throw e;
    } catch (IOException e) {
      closeQuietly(ch);
      release(lockPath, lock, lockChannel);
      throw new JournalException(JournalException.Reason.IO, "cannot recover " + path + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<JournalRecord> recovered() {
    return recovered;
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    List<RecordChain.Encoded> encoded;
    synchronized (queueLock) {
      if (closed) {
        throw new JournalException(JournalException.Reason.CLOSED, "journal " + path + " is closed", null);
      }
      if (failure != null) {
        throw new JournalException(JournalException.Reason.FAILED,
            "journal " + path + " failed earlier: " + failure.getMessage(), failure);
      }
      encoded = chain.advance(entry);
      queue.addAll(encoded);
    }
    RecordChain.Encoded e = encoded.getLast();
    return new Pending() {
      @Override
      public JournalRecord record() {
        return e.record();
      }

      @Override
      public void await() throws JournalException {
        awaitDurable(e.record().seq());
      }
    };
  }

  private void awaitDurable(long seq) throws JournalException {
    if (durableThrough >= seq) {
      return;
    }
    // Leader/follower group commit: one waiter at a time writes and syncs everything queued;
    // the others sleep on the monitor and are all woken together when a sync completes, rather
    // than taking a lock one after another just to find their record already durable.
    synchronized (syncMonitor) {
      while (true) {
        if (durableThrough >= seq) {
          return;
        }
        JournalException failed = failure();
        if (failed != null) {
          throw new JournalException(JournalException.Reason.FAILED, seq,
              "not written: journal " + path + " failed: " + failed.getMessage(), failed);
        }
        if (!syncing) {
          syncing = true;
          break;
        }
        try {
          syncMonitor.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new JournalException(JournalException.Reason.IO, seq,
              "interrupted while waiting for journal " + path + " to sync", e);
        }
      }
    }
    long through = -1;
    try {
      through = writeQueued(seq);
    } finally {
      synchronized (syncMonitor) {
        syncing = false;
        if (through > durableThrough) {
          durableThrough = through;
        }
        syncMonitor.notifyAll();
      }
    }
    if (durableThrough < seq) {
      awaitDurable(seq);
    }
  }

  /** Writes and syncs every queued line; returns the last sequence now durable. Leader only. */
  private long writeQueued(long seq) throws JournalException {
    List<RecordChain.Encoded> batch;
    synchronized (queueLock) {
      batch = new ArrayList<>(queue);
      queue.clear();
    }
    if (batch.isEmpty()) {
      return durableThrough;
    }
    int size = 0;
    for (RecordChain.Encoded e : batch) {
      size += e.line().length + 1;
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    for (RecordChain.Encoded e : batch) {
      buf.put(e.line()).put((byte) '\n');
    }
    buf.flip();
    try {
      while (buf.hasRemaining()) {
        channel.write(buf);
      }
      channel.force(false);
    } catch (IOException ex) {
      JournalException f = new JournalException(JournalException.Reason.FAILED, seq,
          "write to " + path + " failed: " + ex.getMessage(), ex);
      synchronized (queueLock) {
        failure = f;
      }
      LOG.error("journal {}: write failed; no further appends until reopened", path, ex);
      throw f;
    }
    return batch.getLast().record().seq();
  }

  private JournalException failure() {
    synchronized (queueLock) {
      return failure;
    }
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public String describe() {
    return path.toString();
  }

  /** The journal's file. */
  public Path path() {
    return path;
  }

  @Override
  public void close() {
    synchronized (queueLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    closeQuietly(channel);
    release(lockPath, lock, lockChannel);
  }

  private static void release(Path lockPath, FileLock lock, FileChannel lockChannel) {
    try {
      lock.release();
    } catch (IOException ignored) {
      // Closing the channel releases it too.
    }
    closeQuietly(lockChannel);
    HELD.remove(lockPath);
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch == null) {
      return;
    }
    try {
      ch.close();
    } catch (IOException ignored) {
      // Nothing more can be done; the OS releases the lock with the process.
    }
  }
}
