package org.meshjava.cli;

import java.util.List;
import java.util.Optional;
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
      description = "Files of hex envelopes, one per line; - reads standard input.")
  List<InputFile> files;

  @Option(names = "--from-genesis", description = "Require the chain to start at sequence 0.")
  boolean fromGenesis;

  /**
   * Verifies; a file or envelope that is not a chain ends it with a {@link CliException}, which
   * {@code mesh} reports as one line and exit 1.
   */
  @Override
  public Integer call() throws CliException {
    // Envelopes are verified as they are read, holding only the last: an auditor's file of every
    // receipt a steward sealed may be larger than memory.
    ReceiptChain.Verifier chain =
        fromGenesis ? ReceiptChain.Verifier.fromGenesis() : ReceiptChain.Verifier.segment();
    // A blank line holds no envelope and can hide none (the chain links envelope to envelope), so
    // it is passed over, but counted and reported: nothing in the input goes unmentioned.
    long[] blank = {0};
    for (InputFile f : files) {
      int before = chain.count();
      UserFile.forEachLine(
          f,
          "envelope file",
          (index, line) -> {
            if (line.isBlank()) {
              blank[0]++;
            } else {
              try {
                chain.accept(envelope(line, index, chain.count(), f));
              } catch (ReceiptException | CliException e) {
                if (chain.count() == before) {
                  // The file's first line is not an envelope: if it is another kind of mesh file
                  // (a key, a grant, a journal), that is the mistake to name, not the decoder's
                  // word for bytes never meant to be an envelope.
                  Optional<FileKind> kind = FileKind.other(line, FileKind.ENVELOPES);
                  if (kind.isPresent()) {
                    throw new CliException(
                        f + " holds no envelopes: it " + kind.get().looksLike(), e);
                  }
                }
                if (e instanceof CliException c) {
                  throw c;
                }
                // The index runs across every file; the file and line say where to look.
                throw new CliException(
                    String.format("%s line %d: %s", f, index + 1, e.getMessage()), e);
              }
            }
          });
      if (chain.count() == before) {
        // Nothing to verify is not a verified chain: an empty file is a mistake, say so.
        throw new CliException(f + " holds no envelopes");
      }
    }
    SealedReceipt first = chain.first().orElseThrow();
    SealedReceipt last = chain.last().orElseThrow();
    out()
        .printf(
            "verified %s, sequences %d..%d, steward %s%s%n",
            Counted.of(chain.count(), "receipt"),
            first.receipt().sequence(),
            last.receipt().sequence(),
            first.receipt().steward(),
            blank[0] == 0 ? "" : "; passed over " + Counted.of(blank[0], "blank line"));
    return 0;
  }

  /** The envelope on line {@code index} (from 0) of {@code f}, the {@code count}th of the run. */
  private static Envelope envelope(String line, long index, int count, InputFile f)
      throws CliException {
    try {
      return Envelope.fromHex(line.strip());
    } catch (IllegalArgumentException e) {
      // Named as the chain's refusals are: the file and line say where to look.
      throw new CliException(
          String.format("%s line %d: envelope %d is %s", f, index + 1, count, e.getMessage()), e);
    }
  }
}
