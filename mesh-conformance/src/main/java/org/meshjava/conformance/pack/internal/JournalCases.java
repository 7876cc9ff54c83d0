package org.meshjava.conformance.pack.internal;

import static org.meshjava.conformance.pack.internal.Fixtures.obj;
import static org.meshjava.conformance.pack.internal.GrantCases.CALLER;
import static org.meshjava.conformance.pack.internal.GrantCases.NOW;
import static org.meshjava.conformance.pack.internal.GrantCases.REQUEST;
import static org.meshjava.conformance.pack.internal.GrantCases.STEWARD;
import static org.meshjava.conformance.pack.internal.GrantCases.T_END;
import static org.meshjava.conformance.pack.internal.GrantCases.WEIGHTS_A;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.conformance.pack.PackCase;
import org.meshjava.conformance.pack.PackGroup;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalSeal;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * The pack's journal group: small decision journals (§2.2, SPEC 60.2) written by mesh-java's own
 * file journal, and the state a steward must re-establish from each (SPEC 60.3), or the verdict
 * that it must not serve from it.
 */
final class JournalCases {
  private JournalCases() {}

  /** Writes {@code entries} through a real file journal and returns the file's text. */
  static String write(List<JournalEntry> entries) {
    try {
      Path dir = Files.createTempDirectory("mesh-pack-journal");
      Path file = dir.resolve("journal.jsonl");
      try (FileJournal j = FileJournal.open(file)) {
        for (JournalEntry e : entries) {
          j.append(e);
        }
      }
      String text = Files.readString(file, StandardCharsets.UTF_8);
      try (var files = Files.list(dir)) {
        for (Path p : files.toList()) {
          Files.delete(p);
        }
      }
      Files.delete(dir);
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (JournalException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JournalEntry.Authorised authorised(Presentation p, Instant at) {
    return new JournalEntry.Authorised(p, REQUEST, Optional.of(WEIGHTS_A), "small", at);
  }

  private static JournalEntry.Debited debited(long authorised, long uj, @Nullable String breach) {
    return new JournalEntry.Debited(
        authorised, Energy.estimated(uj), uj, Optional.ofNullable(breach));
  }

  private static JournalEntry.Sealed sealed(long sequence, ContentId envelope) {
    return new JournalEntry.Sealed(sequence, envelope);
  }

  /** A granted receipt's record: it carries the envelope, whose signed figures replay checks. */
  private static JournalEntry.Sealed sealed(SealedReceipt receipt, long authorised) {
    return JournalEntry.Sealed.granted(
        receipt.receipt().sequence(), receipt.envelope(), authorised);
  }

  /**
   * The receipts of the journal's serves, sealed by SPEC 30 §10's steward: a granted one for each
   * {@code uj} given (with its breach), an ungranted one for each {@code null}, chained from 0.
   */
  private static List<SealedReceipt> receipts(Long[] uj, String[] breach) {
    List<SealedReceipt> out = new ArrayList<>();
    ObjectNode base = ReceiptCases.reference();
    for (int i = 0; i < uj.length; i++) {
      ObjectNode v = base.deepCopy();
      v.put("steward", GrantCases.did(STEWARD).value());
      v.put("sequence", i);
      if (i > 0) {
        v.put("prev", out.get(i - 1).envelope().id().hex());
      }
      v.put("nonce", String.format("d0%02x", i) + "c2c3c4c5c6c7c8c9cacbcccdcecf");
      if (uj[i] != null) {
        v.put("request_id", REQUEST.id().hex());
        v.put("grant_id", GrantCases.specChain().leaf().id().hex());
        v.put("estimated_uj", uj[i]);
        if (breach[i] != null) {
          v.put("grant_breach", breach[i]);
        }
      }
      Fixtures.derive(v);
      try {
        out.add(org.meshjava.receipt.Jcr1.seal(org.meshjava.openai.ReceiptJson.parse(v), STEWARD));
      } catch (org.meshjava.receipt.ReceiptException e) {
        throw new IllegalStateException(e);
      }
    }
    return out;
  }

  static PackGroup journals() {
    List<PackCase> c = new ArrayList<>();
    GrantChain spec = GrantCases.specChain();
    Presentation p1 = GrantCases.present(CALLER, spec, REQUEST, 0x11);
    Presentation p2 = GrantCases.present(CALLER, spec, REQUEST, 0x12);
    Presentation p3 = GrantCases.present(CALLER, spec, REQUEST, 0x13);
    List<SealedReceipt> receipts =
        receipts(
            new Long[] {400_000L, null, 600_000L}, new String[] {null, null, "caveat-unsatisfied"});
    SealedReceipt r0 = receipts.get(0);
    SealedReceipt r2 = receipts.get(2);
    ContentId e0 = r0.envelope().id();
    ContentId e1 = receipts.get(1).envelope().id();
    ContentId e2 = r2.envelope().id();
    List<SealedReceipt> small = receipts(new Long[] {1000L}, new String[] {null});
    String steward = GrantCases.did(STEWARD).value();

    // Records: 0 Chain, 1 Authorised, 2 Debited, 3 Sealed 0, 4 Sealed 1 (ungranted),
    // 5 Authorised, 6 Debited (breach), 7 Sealed 2, 8 Authorised never debited.
    List<JournalEntry> full =
        List.of(
            authorised(p1, NOW),
            debited(1, 400_000, null),
            sealed(r0, 1),
            sealed(1, e1),
            authorised(p2, NOW.plusSeconds(1)),
            debited(5, 600_000, "caveat-unsatisfied"),
            sealed(r2, 5),
            authorised(p3, NOW.plusSeconds(2)));
    String fullText = write(full);
    ObjectNode fullState = obj();
    fullState.put("records", 9);
    fullState.put("dropped_tail_bytes", 0);
    fullState.put("next_sequence", 3);
    fullState.put("prev", e2.hex());
    var spend = fullState.putArray("spend");
    List<String[]> links = new ArrayList<>();
    for (var l : spec.links()) {
      links.add(new String[] {l.id().hex()});
    }
    links.sort((a, b) -> a[0].compareTo(b[0]));
    for (String[] l : links) {
      ObjectNode s = spend.addObject();
      s.put("grant_id", l[0]);
      s.put("debited_uj", 1_000_000);
      s.put("reserved_uj", 1000);
    }
    ObjectNode u = fullState.putArray("unresolved").addObject();
    u.put("record", 8);
    u.put("caller", GrantCases.did(CALLER).value());
    u.put("backend", "small");
    u.put("request_id", REQUEST.id().hex());
    u.put("grant_id", spec.leaf().id().hex());
    u.put("ceiling_uj", REQUEST.jouleCeilingUj());

    ObjectNode empty = obj();
    empty.put("records", 0);
    empty.put("next_sequence", 0);
    empty.putNull("prev");
    empty.putArray("spend");
    empty.putArray("unresolved");
    c.add(ok("empty", "an empty journal: a new steward, chain at sequence 0", steward, "", empty));
    List<JournalEntry> ungrantedRecords = List.of(sealed(0, e0), sealed(1, e1), sealed(2, e2));
    String ungranted = write(ungrantedRecords);
    ObjectNode ungrantedState = obj();
    ungrantedState.put("records", 3);
    ungrantedState.put("next_sequence", 3);
    ungrantedState.put("prev", e2.hex());
    ungrantedState.putArray("spend");
    ungrantedState.putArray("unresolved");
    c.add(
        ok(
            "ungranted",
            "three ungranted receipts: the chain continues at 3 from the last envelope",
            steward,
            ungranted,
            ungrantedState));
    c.add(
        ok(
            "granted",
            "two granted serves and an ungranted one, then one in flight: spend per link, head and one unresolved",
            steward,
            fullText,
            fullState));
    String torn = fullText + "{\"seq\":9,\"prev\":\"" + "0".repeat(20);
    ObjectNode tornState = fullState.deepCopy();
    tornState.put("dropped_tail_bytes", torn.length() - fullText.length());
    c.add(
        ok(
            "torn-tail",
            "the granted journal with a final line cut short: the tail is dropped, the rest replays",
            steward,
            torn,
            tornState));

    String[] lines = fullText.split("\n");
    String edited =
        String.join("\n", replaceLine(lines, 2, lines[2].replace("400000", "400001"))) + "\n";
    c.add(
        bad(
            "edited-record",
            "a debit edited in place: the next record's prev no longer matches",
            steward,
            edited,
            "CORRUPT",
            3));
    String spaced =
        String.join("\n", replaceLine(lines, 2, lines[2].replace("{\"type\"", "{ \"type\"")))
            + "\n";
    c.add(
        bad(
            "non-canonical-record",
            "a space inserted in a record: not its one encoding",
            steward,
            spaced,
            "CORRUPT",
            2));
    String[] swapped = lines.clone();
    String t = swapped[2];
    swapped[2] = swapped[3];
    swapped[3] = t;
    c.add(
        bad(
            "reordered",
            "two records swapped",
            steward,
            String.join("\n", swapped) + "\n",
            "CORRUPT",
            2));
    List<String> removed = new ArrayList<>(Arrays.asList(lines));
    removed.remove(4);
    c.add(
        bad(
            "record-removed",
            "a record removed from the middle",
            steward,
            String.join("\n", removed) + "\n",
            "CORRUPT",
            4));
    c.add(
        bad(
            "garbage-line",
            "a line that is not a record",
            steward,
            String.join("\n", Arrays.copyOf(lines, 3)) + "\nnot json\n",
            "CORRUPT",
            3));

    c.add(
        bad(
            "wrong-steward",
            "the granted journal replayed by another steward: the gate refuses the first decision (wrong-holder)",
            Fixtures.OTHER_STEWARD.value(),
            fullText,
            "REPLAY_REFUSED",
            1));
    c.add(
        bad(
            "debit-without-authorisation",
            "a debit naming a record that is no authorisation",
            steward,
            write(List.of(authorised(p1, NOW), debited(0, 1000, null))),
            "REPLAY_REFUSED",
            2));
    c.add(
        bad(
            "debited-twice",
            "one authorisation debited twice",
            steward,
            write(List.of(authorised(p1, NOW), debited(1, 1000, null), debited(1, 1000, null))),
            "REPLAY_REFUSED",
            3));
    c.add(
        bad(
            "presentation-twice",
            "one presentation authorised twice (presentation-spent on replay)",
            steward,
            write(
                List.of(
                    authorised(p1, NOW),
                    debited(1, 1000, null),
                    authorised(p1, NOW.plusSeconds(1)))),
            "REPLAY_REFUSED",
            3));
    c.add(
        bad(
            "sealed-out-of-sequence",
            "receipt 2 recorded after receipt 0",
            steward,
            write(List.of(sealed(0, e0), sealed(2, e2))),
            "REPLAY_REFUSED",
            1));
    c.add(
        bad(
            "sealed-not-from-zero",
            "the first receipt recorded is sequence 1",
            steward,
            write(List.of(sealed(1, e1))),
            "REPLAY_REFUSED",
            0));
    c.add(
        bad(
            "sealed-before-debit",
            "a granted receipt recorded before its debit",
            steward,
            write(List.of(authorised(p1, NOW), sealed(small.get(0), 1), debited(1, 1000, null))),
            "REPLAY_REFUSED",
            2));
    c.add(
        bad(
            "debit-contradicts-receipt",
            "a debit of 999 uJ where the signed receipt says 1000 (the chain itself is whole)",
            steward,
            write(List.of(authorised(p1, NOW), debited(1, 999, null), sealed(small.get(0), 1))),
            "REPLAY_REFUSED",
            3));
    c.add(
        bad(
            "breach-not-recorded",
            "a debit above MaxCostUj recorded without its breach",
            steward,
            write(List.of(authorised(p1, NOW), debited(1, 600_000, null))),
            "REPLAY_REFUSED",
            2));
    c.add(
        bad(
            "decided-after-expiry",
            "an authorisation recorded at the grant's expiry: the gate refuses it at its recorded time",
            steward,
            write(List.of(authorised(p1, T_END))),
            "REPLAY_REFUSED",
            1));
    // The transparency log's checkpoints (SPEC 65): signed by the steward over its receipts.
    SignedNote cp3 = checkpoint(STEWARD, e0, e1, e2);
    String checkpointed = checkpointed(ungrantedRecords, cp3, STEWARD);
    ObjectNode checkpointedState = ungrantedState.deepCopy();
    checkpointedState.put("records", 4);
    c.add(
        ok(
            "checkpointed",
            "three ungranted receipts and the steward's signed checkpoint of them: it reproduces",
            steward,
            checkpointed,
            checkpointedState));
    ContentId forged = ContentId.ofBytes("a receipt never sealed".getBytes(StandardCharsets.UTF_8));
    c.add(
        bad(
            "checkpoint-not-reproduced",
            "receipt 1's envelope id rewritten and every record re-hashed: the chain is whole, but the receipts no longer give the signed root",
            steward,
            checkpointed(List.of(sealed(0, e0), sealed(1, forged), sealed(2, e2)), cp3, STEWARD),
            "REPLAY_REFUSED",
            3));
    c.add(
        bad(
            "checkpoint-beyond-receipts",
            "a checkpoint of three receipts after only two: a cut journal",
            steward,
            checkpointed(ungrantedRecords.subList(0, 2), cp3, STEWARD),
            "REPLAY_REFUSED",
            2));
    c.add(
        bad(
            "checkpoint-by-another-key",
            "a checkpoint of the same receipts signed by another key",
            steward,
            checkpointed(
                ungrantedRecords, checkpoint(Fixtures.OTHER_KEY, e0, e1, e2), Fixtures.OTHER_KEY),
            "REPLAY_REFUSED",
            3));
    c.add(
        bad(
            "checkpoint-seal-by-another-key",
            "the steward's checkpoint with a journal seal made by another key: the records before it are not bound to the steward's key",
            steward,
            checkpointed(ungrantedRecords, cp3, Fixtures.OTHER_KEY),
            "REPLAY_REFUSED",
            3));
    c.add(
        bad(
            "checkpoint-of-empty-tree",
            "a Checkpoint of size 0 after three receipts, signed and sealed by the steward: a steward never signs the empty tree (SPEC 65), so its journal holds none",
            steward,
            checkpointed(ungrantedRecords, checkpoint(STEWARD), STEWARD),
            "REPLAY_REFUSED",
            3));
    c.add(
        bad(
            "checkpoint-before-any-receipt",
            "a journal whose first record is a Checkpoint of size 0, signed and sealed by the steward (SPEC 65)",
            steward,
            checkpointed(List.of(), checkpoint(STEWARD), STEWARD),
            "REPLAY_REFUSED",
            0));
    return new PackGroup(
        "journals",
        "Decision journals (§2.2, SPEC 60.2-60.3, 65): op replay_journal; a valid journal gives the spend per grant link, the chain head and the unresolved serves; a bad one gives CORRUPT or REPLAY_REFUSED and the record to blame. Each Checkpoint record must be signed by the steward, reproduced by the tree over the Sealed records before it, and carry the steward's journal seal over its sequence and prev.",
        c);
  }

  /** The C2SP checkpoint {@code key} signs over a log of these receipts (SPEC 65). */
  private static SignedNote checkpoint(SigningKey key, ContentId... envelopes) {
    MerkleTree tree = new MerkleTree();
    for (ContentId e : envelopes) {
      tree.append(e.bytes());
    }
    String origin = Checkpoint.logKey(DidKey.of(key.verificationKey())).name();
    return new Checkpoint(origin, tree.size(), tree.root()).sign(key);
  }

  /**
   * The journal of {@code records} followed by a Checkpoint record of {@code note}, its journal
   * seal made by {@code sealer}.
   */
  private static String checkpointed(
      List<JournalEntry> records, SignedNote note, SigningKey sealer) {
    List<JournalEntry> entries = new ArrayList<>(records);
    entries.add(new JournalEntry.Checkpoint(note, JournalSeal.by(sealer)));
    return write(entries);
  }

  private static String[] replaceLine(String[] lines, int i, String line) {
    String[] out = lines.clone();
    out[i] = line;
    return out;
  }

  private static ObjectNode input(String steward, String journal) {
    return obj("steward", steward).put("journal", journal);
  }

  private static PackCase ok(
      String slug, String comment, String steward, String journal, ObjectNode state) {
    return PackCase.valid(
        "journals/" + slug, comment, "replay_journal", input(steward, journal), state);
  }

  private static PackCase bad(
      String slug, String comment, String steward, String journal, String reason, int record) {
    return PackCase.invalid(
            "journals/" + slug, comment, "replay_journal", input(steward, journal), reason)
        .expecting("record", Fixtures.NODES.numberNode(record));
  }
}
