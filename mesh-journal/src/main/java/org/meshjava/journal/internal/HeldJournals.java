package org.meshjava.journal.internal;

import java.io.IOException;
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
  /** Reads the bytes of the journal this process holds as an identity, if it holds one. */
  @FunctionalInterface
  public interface Reader {
    /**
     * The bytes of the journal held as {@code identity}; empty if none is held.
     *
     * @throws JournalException {@code LOCKED} while the journal is being opened, {@code IO}
     */
    Optional<byte[]> read(Object identity) throws JournalException;
  }

  private static volatile @Nullable Reader reader;

  private HeldJournals() {}

  /** Called once, by {@code FileJournal}'s class initialiser. */
  public static void register(Reader held) {
    reader = held;
  }

  /**
   * The bytes of the journal this process holds as {@code identity}; empty if it holds none.
   *
   * @throws JournalException as {@link Reader#read}
   */
  public static Optional<byte[]> read(Object identity) throws JournalException {
    Reader r = reader;
    return r == null ? Optional.empty() : r.read(identity);
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
