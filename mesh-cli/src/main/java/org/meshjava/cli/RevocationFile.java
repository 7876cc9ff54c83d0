package org.meshjava.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Revocation;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;

/**
 * A file of revocations, one hex line each ({@code mesh grant revoke} writes one; concatenate to
 * load several), loaded into a steward by {@code mesh serve --revocations}. Each is verified and
 * journalled before it takes effect; one that does not verify stops the start, naming its line.
 */
final class RevocationFile {
  private RevocationFile() {}

  static void load(Steward steward, Path file, PrintWriter out) throws CliException {
    List<String> lines = GrantFiles.readText(file).lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      String where = file + " line " + (i + 1);
      try {
        Revocation r = Revocation.fromHex(line);
        boolean recorded = steward.revoke(r);
        out.println(
            (recorded ? "revoked " : "already revoked ")
                + "grant "
                + r.grantId()
                + " from "
                + r.from()
                + " ("
                + where
                + ")");
      } catch (MalformedGrantException e) {
        throw new CliException(where + ": not a revocation: " + e.getMessage(), e);
      } catch (GrantRefusedException e) {
        throw new CliException(where + ": refused: " + e.getMessage(), e);
      } catch (ServeException e) {
        throw new CliException(where + ": " + e.getMessage(), e);
      }
    }
  }
}
