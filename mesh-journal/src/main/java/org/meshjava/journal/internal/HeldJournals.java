package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalException;

/**
 * How {@link JournalFile} reads a journal file this process holds open as a {@link FileJournal}:
 * through the holder's channel, never through a second descriptor, whose closing would release the
 * holder's OS lock (see {@code FileJournal}'s design note).
 *
 * <p>{@code FileJournal} registers its reader here when its class is initialised. Until then no
 * file journal can be open in this process, so there is nothing held to read: {@link #read} answers
 * empty. The indirection keeps the file journal's registry of held files out of its public API
 * while this package reads through it.
 */
public final class HeldJournals {
  /**
   * Reads a held journal's file through the channel its holder locked it with.
   *
   * @param <T> what the read finds
   */
  @FunctionalInterface
  public interface ChannelRead<T> {
    /**
     * Reads from {@code channel} with positional reads only: it must neither move the channel's
     * position (the holder appends from it) nor close it (that would release the holder's lock).
     */
    T read(FileChannel channel) throws IOException, JournalException;
  }

  /** Reads the journal this process holds as an identity, if it holds one. */
  @FunctionalInterface
  public interface Reader {
    /**
     * What {@code read} returns, given the channel of the journal held as {@code identity}, which
     * {@code path} names; empty if none is held, and the caller may then open {@code path} itself.
     *
     * @throws JournalException {@code LOCKED} while the journal is being opened, {@code IO} also
     *     where the file is one this process holds otherwise (a snapshot folder's lock file), whose
     *     descriptor's closing would let that lock go, or what {@code read} throws
     */
    <T> Optional<T> read(Path path, Object identity, ChannelRead<T> read) throws JournalException;
  }

  /** What this process holds a file as, by the file's identity. */
  public interface Holds {
    /**
     * What this process holds the file of identity {@code identity} as, locked through a descriptor
     * of its own ("a journal", "a snapshot folder's lock file"); null if it holds no such file.
     */
    @Nullable String heldAs(Object identity);

    /**
     * The descriptor through which this process holds the journal file of identity {@code identity}
     * locked, where it may be read with positional reads (the journal open, or being opened on this
     * thread); null otherwise.
     */
    @Nullable FileChannel channel(Object identity);

    /**
     * Whether this process holds any file locked, as a journal or a snapshot folder's lock file, or
     * is taking such a lock: registered before its lock is tried, unregistered after it is let go.
     */
    boolean any();
  }

  private static volatile @Nullable Reader reader;
  private static volatile @Nullable Holds holds;

  private HeldJournals() {}

  /**
   * Called once, by {@code FileJournal}'s class initialiser. Until then no journal is held in this
   * process, nor a snapshot folder's lock file (a claim initialises {@code FileJournal} before it
   * takes its lock, to check the two registries against each other).
   */
  public static void register(Reader held, Holds heldAs) {
    reader = held;
    holds = heldAs;
  }

  /**
   * Opens {@code file}, a file of the journal's that no lock is taken on (an archived segment, a
   * killed archive's copy), to read it; refused, before it is opened, where it is another name (a
   * hard link) of a file this process holds locked, but for a journal open here (or being opened on
   * this thread), which a journal I/O thread ({@link JournalIo}) reads through its holder's
   * descriptor. Closing any descriptor of a file lets go every POSIX lock this process holds on it,
   * so reading such a file would let another process open that journal or claim that snapshot
   * folder. A file swapped in between this check and the open is the one case left, and the
   * descriptor is closed as {@link LockHolder#closeKeepingLocks} closes one, so that file's lock is
   * kept then too.
   *
   * @throws JournalException {@code IO}, naming the file and what it is another name of
   * @throws IOException if the file cannot be read or opened
   */
  public static ReadChannel openToRead(Path file) throws IOException, JournalException {
    Holds h = holds;
    if (h != null) {
      Object identity = identity(file.toRealPath());
      FileChannel held = h.channel(identity);
      if (held != null && JournalIo.onItsThread()) {
        // The journal itself under a segment's name: read through its holder's descriptor, so the
        // read finds what it would (a segment that is no segment), and the lock stays. Only on a
        // journal I/O thread: a caller's thread (a scan, a verify) may be interrupted during the
        // read, which would close that descriptor and let the lock go; it is refused below.
        return new ReadChannel(held, false);
      }
      String as = h.heldAs(identity);
      if (as != null) {
        throw new JournalException(
            JournalException.Reason.IO,
            "cannot read "
                + file
                + ": it is another name (a hard link) of "
                + as
                + " that this process holds, and opening and closing it would let that lock go;"
                + " it is left as it is. An archive never makes one: move it out of "
                + file.toAbsolutePath().getParent(),
            null);
      }
    }
    return LockHolder.openToRead(file);
  }

  /**
   * Whether this process holds (or is taking) any OS lock on a journal or a snapshot folder's lock
   * file ({@link Holds#any}); false before {@code FileJournal} is initialised, when it holds none.
   */
  static boolean holdsAny() {
    Holds h = holds;
    return h != null && h.any();
  }

  /**
   * A descriptor {@link #openToRead} opened ({@code owned}), closed as {@link
   * LockHolder#closeKeepingLocks} closes one, or a held journal's, read with positional reads only
   * and left open. Not thread-safe: one reader's, for one try-with-resources block.
   */
  public record ReadChannel(FileChannel channel, boolean owned) implements AutoCloseable {
    @Override
    public void close() {
      if (owned) {
        LockHolder.closeKeepingLocks(channel);
      }
    }
  }

  /**
   * What {@code read} returns, given the channel of the journal this process holds as {@code
   * identity}, which {@code path} names; empty if it holds none, and the caller may then open
   * {@code path} itself. The read streams: a held journal of any length is read in bounded memory,
   * as one no process holds is.
   *
   * @throws JournalException as {@link Reader#read}
   */
  public static <T> Optional<T> read(Path path, Object identity, ChannelRead<T> read)
      throws JournalException {
    Reader r = reader;
    return r == null ? Optional.empty() : r.read(path, identity, read);
  }

  /**
   * The identity of the file {@code real} names: device and inode where the platform has them
   * ({@link BasicFileAttributes#fileKey()}), else the real path. Read by {@code stat}; opens
   * nothing.
   *
   * @throws IOException if the file cannot be read
   */
  public static Object identity(Path real) throws IOException {
    Object key = Files.readAttributes(real, BasicFileAttributes.class).fileKey();
    return key != null ? key : real.toRealPath();
  }
}
