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
  /** Reads a held journal's file through the channel its holder locked it with. */
  @FunctionalInterface
  public interface ChannelRead {
    /**
     * Reads from {@code channel} with positional reads only: it must neither move the channel's
     * position (the holder appends from it) nor close it (that would release the holder's lock).
     */
    JournalFile.End read(FileChannel channel) throws IOException, JournalException;
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
    Optional<JournalFile.End> read(Path path, Object identity, ChannelRead read)
        throws JournalException;
  }

  private static volatile @Nullable Reader reader;

  private HeldJournals() {}

  /** Called once, by {@code FileJournal}'s class initialiser. */
  public static void register(Reader held) {
    reader = held;
  }

  /**
   * What {@code read} returns, given the channel of the journal this process holds as {@code
   * identity}, which {@code path} names; empty if it holds none, and the caller may then open
   * {@code path} itself. The read streams: a held journal of any length is read in bounded memory,
   * as one no process holds is.
   *
   * @throws JournalException as {@link Reader#read}
   */
  public static Optional<JournalFile.End> read(Path path, Object identity, ChannelRead read)
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
