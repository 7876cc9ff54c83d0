package org.meshjava.steward;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Revocation;

/**
 * A file of revocations (SPEC 30 §11) loaded into a steward: each non-blank line one revocation in
 * hex, as {@code mesh grant revoke} writes it, so that several such files concatenated make one.
 * The lines are taken in order, each verified and journalled by {@link Steward#revoke} before the
 * next; the first that fails stops the load, and those before it stay revoked. {@code mesh serve
 * --revocations} and the Spring Boot starter's {@code mesh.revocations} load their file with it.
 *
 * <p>Holds no state: {@link #load} may be called from any thread, and revokes through the steward,
 * which orders each revocation against concurrent decisions.
 */
public final class RevocationFile {
  /**
   * The largest file {@link #load(Steward, Path, Consumer)} reads: a revocation is about a kilobyte
   * of hex, so 64 MiB holds tens of thousands; a larger file is the wrong file (or {@code
   * /dev/zero}), refused before it fills the heap.
   */
  public static final int MAX_FILE_BYTES = 64 << 20;

  /**
   * What one line of the file did.
   *
   * @param line the line's number in the file, from 1
   * @param revocation the revocation it holds, verified
   * @param recorded true if the steward recorded it; false if the grant was already revoked from
   *     that time or earlier, so nothing changed
   */
  public record Loaded(int line, Revocation revocation, boolean recorded) {
    /** Checks the line is a line number and the revocation present. */
    public Loaded {
      if (line < 1) {
        throw new IllegalArgumentException("line numbers start at 1: " + line);
      }
      Objects.requireNonNull(revocation, "revocation");
    }
  }

  private RevocationFile() {}

  /**
   * Reads {@code file} as UTF-8 and loads each revocation in it into {@code steward}, telling
   * {@code each} what every line did as soon as it is done.
   *
   * @throws RevocationFileException naming the file, and the line at fault: {@link
   *     RevocationFileException.Reason#UNREADABLE} if the file cannot be read (also when it is not
   *     UTF-8, or larger than {@link #MAX_FILE_BYTES}), else as {@link #load(Steward, Path, String,
   *     Consumer)}
   */
  public static void load(Steward steward, Path file, Consumer<? super Loaded> each)
      throws RevocationFileException {
    String text;
    try {
      text = read(file);
    } catch (IOException e) {
      throw new RevocationFileException(RevocationFileException.Reason.UNREADABLE, file, 0, e);
    }
    load(steward, file, text, each);
  }

  /** The file's text, read no further than {@link #MAX_FILE_BYTES} and one byte. */
  private static String read(Path file) throws IOException {
    // A regular file's size says at once; a device or a pipe is read up to the bound.
    if (Files.isRegularFile(file) && Files.size(file) > MAX_FILE_BYTES) {
      throw tooLarge();
    }
    byte[] bytes;
    try (java.io.InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_FILE_BYTES + 1);
    }
    if (bytes.length > MAX_FILE_BYTES) {
      throw tooLarge();
    }
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
        .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
        .decode(java.nio.ByteBuffer.wrap(bytes))
        .toString();
  }

  private static IOException tooLarge() {
    return new IOException("larger than " + MAX_FILE_BYTES + " bytes; is it the right file?");
  }

  /**
   * Loads each revocation in {@code text}, already read from {@code file} by a caller that reads
   * files its own way, into {@code steward}, telling {@code each} what every line did as soon as it
   * is done. {@code file} only names the file in a failure.
   *
   * @throws RevocationFileException naming the file and the line at fault, with its reason: {@link
   *     RevocationFileException.Reason#NOT_A_REVOCATION}, {@link
   *     RevocationFileException.Reason#REFUSED} (it does not verify: a forged signature, a revoker
   *     that issued no link of the chain) or {@link RevocationFileException.Reason#NOT_RECORDED}
   */
  public static void load(Steward steward, Path file, String text, Consumer<? super Loaded> each)
      throws RevocationFileException {
    // An editor's byte order mark is no part of the first line (and is not whitespace, which each
    // line is stripped of); mesh serve's file reader drops it, so a path loaded here drops it too.
    String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
    load(steward, file, body.lines().toList(), each);
  }

  private static void load(
      Steward steward, Path file, List<String> lines, Consumer<? super Loaded> each)
      throws RevocationFileException {
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      int number = i + 1;
      try {
        Revocation r = Revocation.fromHex(line);
        each.accept(new Loaded(number, r, steward.revoke(r)));
      } catch (MalformedGrantException e) {
        throw new RevocationFileException(
            RevocationFileException.Reason.NOT_A_REVOCATION, file, number, e);
      } catch (GrantRefusedException e) {
        throw new RevocationFileException(RevocationFileException.Reason.REFUSED, file, number, e);
      } catch (ServeException e) {
        throw new RevocationFileException(
            RevocationFileException.Reason.NOT_RECORDED, file, number, e);
      }
    }
  }
}
