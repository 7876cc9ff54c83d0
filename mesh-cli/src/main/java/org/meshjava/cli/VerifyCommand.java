package org.meshjava.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mesh verify}: verifies JCR-1 envelopes, one hex envelope per line across the given files
 * in order, as a receipt chain; exits 1 naming the first bad link.
 */
@Command(
    name = "verify",
    description = "Verify hex envelopes (one per line) and the receipt chain they form.")
final class VerifyCommand extends MeshCommand implements Callable<Integer> {
  @Parameters(
      paramLabel = "FILE",
      arity = "1..*",
      description = "Files of hex envelopes, one per line.")
  List<Path> files;

  @Option(names = "--from-genesis", description = "Require the chain to start at sequence 0.")
  boolean fromGenesis;

  @Override
  public Integer call() throws CliException {
    PrintWriter out = out();
    List<Envelope> envelopes = new ArrayList<>();
    for (Path f : files) {
      int before = envelopes.size();
      for (String line : UserFile.readText(f, "envelope file").lines().toList()) {
        if (line.isBlank()) {
          continue;
        }
        try {
          envelopes.add(Envelope.fromHex(line.strip()));
        } catch (IllegalArgumentException e) {
          err().println("mesh verify: envelope " + envelopes.size() + " in " + f + " is not hex");
          return 1;
        }
      }
      if (envelopes.size() == before) {
        // Nothing to verify is not a verified chain: an empty file is a mistake, say so.
        err().println("mesh verify: " + f + " holds no envelopes");
        return 1;
      }
    }
    try {
      List<SealedReceipt> ok =
          fromGenesis
              ? ReceiptChain.verifyFromGenesis(envelopes)
              : ReceiptChain.verifySegment(envelopes);
      out.println(
          "verified "
              + Counted.of(ok.size(), "receipt")
              + (ok.isEmpty()
                  ? ""
                  : ", sequences "
                      + ok.getFirst().receipt().sequence()
                      + ".."
                      + ok.getLast().receipt().sequence()
                      + ", steward "
                      + ok.getFirst().receipt().steward()));
      return 0;
    } catch (ReceiptException e) {
      err().println("mesh verify: " + e.getMessage());
      return 1;
    }
  }
}
