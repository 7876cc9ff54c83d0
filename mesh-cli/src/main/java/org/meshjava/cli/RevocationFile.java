package org.meshjava.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import org.meshjava.steward.RevocationFileException;
import org.meshjava.steward.Steward;

/**
 * A file of revocations, one hex line each ({@code mesh grant revoke} writes one; concatenate to
 * load several), loaded into a steward by {@code mesh serve --revocations}. The file is read as the
 * command reads every file, then loaded by the steward's {@link
 * org.meshjava.steward.RevocationFile}: each is verified and journalled before it takes effect; one
 * that does not verify stops the start, naming its line.
 */
final class RevocationFile {
  private RevocationFile() {}

  /**
   * Reads the file, as every file a command reads: done before the steward and its backends start,
   * so that a file that cannot be read (missing, a folder, binary, too large) stops the start at
   * once, with nothing begun.
   */
  static String read(Path file) throws CliException {
    String text = GrantFiles.readText(file);
    // Another kind of mesh file (the key, the grant chain) is named as such before anything
    // starts, not refused by the decoder's word for its bytes.
    Optional<String> other = FileKind.otherThan(FileKind.REVOCATION, text);
    if (other.isPresent()) {
      throw new CliException(file + " holds no revocations: " + other.get());
    }
    return text;
  }

  /** Reads the file ({@link #read}) and loads its revocations into the steward. */
  static void load(Steward steward, Path file, PrintWriter out) throws CliException {
    load(steward, file, read(file), out);
  }

  /** Loads the revocations in {@code text}, {@link #read} from {@code file}, into the steward. */
  static void load(Steward steward, Path file, String text, PrintWriter out) throws CliException {
    try {
      org.meshjava.steward.RevocationFile.load(
          steward,
          file,
          text,
          loaded ->
              out.println(
                  (loaded.recorded() ? "revoked " : "already revoked ")
                      + "grant "
                      + loaded.revocation().grantId()
                      + " from "
                      + loaded.revocation().from()
                      + " ("
                      + file
                      + " line "
                      + loaded.line()
                      + ")"));
    } catch (RevocationFileException e) {
      throw new CliException(String.valueOf(e.getMessage()), e);
    }
  }
}
