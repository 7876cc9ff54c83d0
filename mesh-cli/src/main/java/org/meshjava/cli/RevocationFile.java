package org.meshjava.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
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

  static void load(Steward steward, Path file, PrintWriter out) throws CliException {
    String text = GrantFiles.readText(file);
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
