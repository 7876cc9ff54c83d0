package org.meshjava.journal.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.bytes.LowercaseHex;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;
import org.meshjava.core.internal.RequestCbor;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * The one-line JSON encoding of a journal record (SPEC.md section 60.2). Keys are written in a
 * fixed order with no whitespace, so a record has exactly one encoding; the next record's {@code
 * prev} is BLAKE3 of these bytes. Decoding is strict: unknown or missing keys, wrong types and
 * non-canonical text are refused. Stateless and thread-safe.
 */
public final class RecordCodec {
  private static final JsonFactory FACTORY = new JsonFactory();
  private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);

  /**
   * The longest JSON string {@link #decode} reads (the parser's limit): a record holding a longer
   * one (an envelope's hex) does not read back.
   */
  public static final int MAX_STRING = FACTORY.streamReadConstraints().getMaxStringLength();

  private static final HexFormat HEX = HexFormat.of();

  /**
   * The chains recorded so far, by id: what {@code Authorised} lines refer to, each kept only while
   * a later line may still name it ({@link RecordedChains}).
   */
  private final RecordedChains chains;

  public RecordCodec() {
    this(new HashMap<>());
  }

  /** A codec that decodes with, adds to and prunes {@code chains} (the caller's table). */
  public RecordCodec(Map<ContentId, GrantChain> chains) {
    this.chains = new RecordedChains(chains);
  }

  /** Notes every chain in {@code known} as recorded (each one not already noted). */
  public void rememberAll(Map<ContentId, GrantChain> known) {
    known.forEach(
        (id, chain) -> {
          if (!chains.contains(id)) {
            chains.put(id, chain);
          }
        });
  }

  /** Whether a {@code Chain} record with this id has been read or written and is still kept. */
  public boolean knows(ContentId chainId) {
    return chains.contains(chainId);
  }

  /** Notes a chain as recorded. */
  public void remember(ContentId chainId, GrantChain chain) {
    chains.put(chainId, chain);
  }

  /**
   * Notes that {@code entry} was written, or applied in order by a reader that applies every record
   * it takes: an {@code Authorised} one forgets the chains no later record can name ({@link
   * RecordedChains#decided}). Decoding never forgets.
   */
  public void applied(JournalEntry entry) {
    if (entry instanceof JournalEntry.Authorised a) {
      chains.decided(a.decidedAt());
    }
  }

  /** Encodes a record as UTF-8 JSON, without the newline. */
  public static byte[] encode(JournalRecord r) {
    return encode(r, null);
  }

  /**
   * Encodes a record as UTF-8 JSON, without the newline, given the grant chain the caller already
   * hashed ({@link RecordChain} hashes an authorisation's chain to decide whether a {@code Chain}
   * record comes first): a {@code Chain} or {@code Authorised} record whose chain is {@code
   * known}'s (the same object) is written with {@code known}'s id, not hashed a second time. A
   * record naming another chain has its own hashed, so the bytes are always those of {@link
   * #encode(JournalRecord)}.
   *
   * @param known a chain and its id, or {@code null}; ignored for records that name no chain
   */
  public static byte[] encode(JournalRecord r, @Nullable IdentifiedChain known) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("seq", r.seq());
      if (r.prev().isPresent()) {
        g.writeStringField("prev", r.prev().get().hex());
      }
      g.writeObjectFieldStart("entry");
      switch (r.entry()) {
        case JournalEntry.Chain c -> {
          g.writeStringField("type", "Chain");
          byte[] chain = c.chain().encode();
          g.writeStringField(
              "id",
              (known != null && known.chain().equals(c.chain())
                      ? known.id()
                      : ContentId.ofBytes(chain))
                  .hex());
          g.writeStringField("chain", HEX.formatHex(chain));
        }
        case JournalEntry.Authorised a -> {
          g.writeStringField("type", "Authorised");
          GrantChain chain = a.presentation().chain();
          g.writeStringField(
              "chain",
              (known != null ? known.idOf(chain) : ContentId.ofBytes(chain.encode())).hex());
          g.writeStringField("caller", a.presentation().caller().value());
          g.writeStringField("nonce", a.presentation().nonce().hex());
          g.writeStringField("signature", HEX.formatHex(a.presentation().signature()));
          g.writeStringField("request", a.identified().encodedHex());
          if (a.model().isPresent()) {
            g.writeStringField("model", a.model().get().hex());
          }
          g.writeStringField("backend", a.backend());
          g.writeNumberField("decided_at_ms", a.decidedAt().toEpochMilli());
        }
        case JournalEntry.Debited d -> {
          g.writeStringField("type", "Debited");
          g.writeNumberField("authorised", d.authorised());
          g.writeNumberField("estimated_uj", d.energy().estimatedUj());
          if (d.energy().measuredUj().isPresent()) {
            g.writeNumberField("measured_uj", d.energy().measuredUj().getAsLong());
          }
          g.writeStringField("provenance", d.energy().provenance().name());
          g.writeNumberField("debited_uj", d.debitedUj());
          if (d.breach().isPresent()) {
            g.writeStringField("breach", d.breach().get());
          }
        }
        case JournalEntry.Sealed s -> {
          g.writeStringField("type", "Sealed");
          g.writeNumberField("sequence", s.sequence());
          g.writeStringField("envelope_id", s.envelopeId().hex());
          if (s.authorised().isPresent()) {
            g.writeNumberField("authorised", s.authorised().getAsLong());
          }
          if (s.envelope().isPresent()) {
            g.writeStringField("envelope", s.envelope().get().hex());
          }
        }
        case JournalEntry.Suspended x -> {
          g.writeStringField("type", "Suspended");
          g.writeNumberField("sequence", x.sequence());
          g.writeStringField("envelope_id", x.envelope().id().hex());
          g.writeStringField("envelope", x.envelope().hex());
        }
        case JournalEntry.SuspendedByCheckpoint x -> {
          g.writeStringField("type", "Suspended");
          g.writeStringField("checkpoint", x.checkpoint().encoded());
        }
        case JournalEntry.Resumed x -> {
          g.writeStringField("type", "Resumed");
          g.writeStringField("note", x.note());
        }
        case JournalEntry.Revoked x -> {
          g.writeStringField("type", "Revoked");
          g.writeStringField("revocation", x.revocation().toHex());
        }
        case JournalEntry.Checkpoint x -> {
          g.writeStringField("type", "Checkpoint");
          g.writeStringField("note", x.note().encoded());
          if (!(x.seal() instanceof JournalSeal.Signed seal)) {
            throw new IllegalArgumentException(
                "a checkpoint's journal seal is signed when the journal places the record");
          }
          g.writeStringField("seal", HEX.formatHex(seal.signature()));
        }
      }
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Reads only the {@code seq} of a line, for finding a journal's end without decoding it.
   *
   * @param where the line, for a message: {@code "the line at byte 1998 of FILE"}
   * @throws JournalException {@code CORRUPT} if the line is no JSON object with a {@code seq}
   */
  public static long seqOf(byte[] line, Object where) throws JournalException {
    try {
      JsonNode root = MAPPER.readTree(line);
      JsonNode seq = root == null ? null : root.get("seq");
      if (seq == null
          || !seq.canConvertToExactIntegral()
          || !seq.canConvertToLong()
          || seq.asLong() < 0) {
        throw new JournalException(JournalException.Reason.CORRUPT, where + " has no seq", null);
      }
      return seq.asLong();
    } catch (IOException e) {
      throw new JournalException(
          JournalException.Reason.CORRUPT, where + " is not JSON: " + notJson(e), null);
    }
  }

  /**
   * What a JSON parser found wrong, and at which column of the line: without the location Jackson
   * appends, which names a "REDACTED" source and a line that is always 1.
   */
  private static String notJson(IOException e) {
    if (e instanceof JsonProcessingException j) {
      com.fasterxml.jackson.core.JsonLocation at = j.getLocation();
      return j.getOriginalMessage() + (at == null ? "" : " (column " + at.getColumnNr() + ")");
    }
    return FailureWords.of(e);
  }

  /**
   * Decodes one line (without its newline).
   *
   * @param expectedSeq the position the line holds in the file, for error messages
   * @throws JournalException with {@code CORRUPT} if the line is not a record's exact encoding
   */
  public JournalRecord decode(byte[] line, long expectedSeq) throws JournalException {
    JournalRecord r;
    try {
      JsonNode root = MAPPER.readTree(line);
      if (root == null || !root.isObject()) {
        throw corrupt(expectedSeq, "not a JSON object");
      }
      Fields top = new Fields(root, expectedSeq, Set.of("seq", "prev", "entry"));
      long seq = top.uint("seq");
      Optional<ContentId> prev = top.optionalId("prev");
      JsonNode e = top.node("entry");
      if (!e.isObject()) {
        throw corrupt(expectedSeq, "entry is not an object");
      }
      String type = new Fields(e, expectedSeq, null).text("type");
      JournalEntry entry =
          switch (type) {
            case "Chain" -> {
              Fields f = new Fields(e, expectedSeq, Set.of("type", "id", "chain"));
              byte[] bytes = f.hex("chain");
              ContentId id = f.id("id");
              if (!id.equals(ContentId.ofBytes(bytes))) {
                throw corrupt(expectedSeq, "chain id is not the BLAKE3 of the chain");
              }
              GrantChain chain = GrantChain.decode(bytes);
              chains.put(id, chain);
              yield new JournalEntry.Chain(chain);
            }
            case "Authorised" -> {
              Fields f =
                  new Fields(
                      e,
                      expectedSeq,
                      Set.of(
                          "type",
                          "chain",
                          "caller",
                          "nonce",
                          "signature",
                          "request",
                          "model",
                          "backend",
                          "decided_at_ms"));
              GrantChain chain = chains.get(f.id("chain"));
              if (chain == null) {
                throw corrupt(
                    expectedSeq,
                    "refers to chain " + f.text("chain") + ", which no earlier record holds");
              }
              Presentation presentation =
                  Presentation.of(
                      chain,
                      DidKey.parse(f.text("caller")),
                      PresentationNonce.of(f.hex("nonce")),
                      f.hex("signature"));
              ServeRequest request = RequestCbor.decode(CanonicalCbor.decode(f.hex("request")));
              // Reading does not forget: a reader may decode past the records it applies (the
              // snapshotter reads to the end but captures at an earlier place), and the table it
              // shares must still hold every chain a record after that place names. Whoever
              // applies the records in order (a replay, a writer) forgets.
              yield new JournalEntry.Authorised(
                  presentation,
                  request,
                  f.optionalId("model"),
                  f.text("backend"),
                  Instant.ofEpochMilli(f.uint("decided_at_ms")));
            }
            case "Debited" -> {
              Fields f =
                  new Fields(
                      e,
                      expectedSeq,
                      Set.of(
                          "type",
                          "authorised",
                          "estimated_uj",
                          "measured_uj",
                          "provenance",
                          "debited_uj",
                          "breach"));
              OptionalLong measured =
                  f.has("measured_uj")
                      ? OptionalLong.of(f.uint("measured_uj"))
                      : OptionalLong.empty();
              yield new JournalEntry.Debited(
                  f.uint("authorised"),
                  new Energy(
                      measured, f.uint("estimated_uj"), Provenance.fromWire(f.text("provenance"))),
                  f.uint("debited_uj"),
                  f.has("breach") ? Optional.of(f.text("breach")) : Optional.empty());
            }
            case "Sealed" -> {
              Fields f =
                  new Fields(
                      e,
                      expectedSeq,
                      Set.of("type", "sequence", "envelope_id", "authorised", "envelope"));
              yield new JournalEntry.Sealed(
                  f.uint("sequence"),
                  f.id("envelope_id"),
                  f.has("authorised")
                      ? OptionalLong.of(f.uint("authorised"))
                      : OptionalLong.empty(),
                  f.has("envelope")
                      ? Optional.of(Envelope.of(f.hex("envelope")))
                      : Optional.empty());
            }
            case "Suspended" -> {
              if (e.has("checkpoint")) {
                Fields f = new Fields(e, expectedSeq, Set.of("type", "checkpoint"));
                try {
                  yield new JournalEntry.SuspendedByCheckpoint(
                      SignedNote.parse(f.text("checkpoint")));
                } catch (LogException bad) {
                  throw corrupt(
                      expectedSeq,
                      "suspended on a checkpoint that is not a signed note: " + bad.getMessage());
                }
              }
              Fields f =
                  new Fields(e, expectedSeq, Set.of("type", "sequence", "envelope_id", "envelope"));
              Envelope envelope = Envelope.of(f.hex("envelope"));
              if (!envelope.id().equals(f.id("envelope_id"))) {
                throw corrupt(expectedSeq, "envelope_id is not the BLAKE3 of the envelope");
              }
              yield new JournalEntry.Suspended(f.uint("sequence"), envelope);
            }
            case "Resumed" -> {
              Fields f = new Fields(e, expectedSeq, Set.of("type", "note"));
              yield new JournalEntry.Resumed(f.text("note"));
            }
            case "Revoked" -> {
              Fields f = new Fields(e, expectedSeq, Set.of("type", "revocation"));
              yield new JournalEntry.Revoked(Revocation.decode(f.hex("revocation")));
            }
            case "Checkpoint" -> {
              Fields f = new Fields(e, expectedSeq, Set.of("type", "note", "seal"));
              try {
                yield new JournalEntry.Checkpoint(
                    SignedNote.parse(f.text("note")), new JournalSeal.Signed(f.hex("seal")));
              } catch (LogException bad) {
                throw corrupt(expectedSeq, "not a signed checkpoint: " + bad.getMessage());
              }
            }
            default -> throw corrupt(expectedSeq, "unknown entry type '" + type + "'");
          };
      r = new JournalRecord(seq, prev, entry);
    } catch (MalformedGrantException | DidKeyException | CborDecodeException e) {
      throw new JournalException(
          JournalException.Reason.CORRUPT, expectedSeq, FailureWords.of(e), e);
    } catch (JsonProcessingException e) {
      throw new JournalException(
          JournalException.Reason.CORRUPT, expectedSeq, "not JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new JournalException(JournalException.Reason.IO, expectedSeq, FailureWords.of(e), e);
    } catch (IllegalArgumentException e) {
      throw new JournalException(
          JournalException.Reason.CORRUPT, expectedSeq, FailureWords.of(e), e);
    }
    // One encoding per record: anything else (spacing, key order, number forms) was not written by
    // us.
    if (!java.util.Arrays.equals(encode(r), line)) {
      throw corrupt(expectedSeq, "the line is not the record's canonical encoding");
    }
    return r;
  }

  private static JournalException corrupt(long seq, String detail) {
    return new JournalException(JournalException.Reason.CORRUPT, seq, detail, null);
  }

  /** Strict typed access to a JSON object's fields. */
  private record Fields(JsonNode o, long seq, @Nullable Set<String> allowed) {
    Fields {
      if (allowed != null) {
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
          String name = it.next();
          if (!allowed.contains(name)) {
            throw new IllegalArgumentException("unknown key '" + name + "'");
          }
        }
      }
    }

    boolean has(String k) {
      return o.has(k);
    }

    JsonNode node(String k) {
      JsonNode v = o.get(k);
      if (v == null) {
        throw new IllegalArgumentException("missing key '" + k + "'");
      }
      return v;
    }

    long uint(String k) {
      JsonNode v = node(k);
      if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
        throw new IllegalArgumentException("'" + k + "' must be a non-negative integer");
      }
      return v.asLong();
    }

    String text(String k) {
      JsonNode v = node(k);
      if (!v.isTextual()) {
        throw new IllegalArgumentException("'" + k + "' must be a string");
      }
      return v.asText();
    }

    byte[] hex(String k) {
      try {
        return LowercaseHex.decode(text(k));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("'" + k + "' is " + e.getMessage(), e);
      }
    }

    ContentId id(String k) {
      return ContentId.fromHex(text(k));
    }

    Optional<ContentId> optionalId(String k) {
      return has(k) ? Optional.of(id(k)) : Optional.empty();
    }
  }
}
