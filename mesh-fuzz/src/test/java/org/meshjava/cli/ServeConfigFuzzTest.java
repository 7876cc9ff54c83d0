package org.meshjava.cli;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The {@code mesh serve} configuration file, as an operator writes one (by hand, or a template a
 * deployment fills in): its only refusal is a {@link CliException} naming the file, and a whole
 * number it accepts is the number the file says. In this package because the reader is the
 * command's own.
 *
 * <p>{@link #file} mutates the bytes; {@link #settings} builds the object from the keys the reader
 * knows, each with a value of any JSON type, so that inputs reach past the unknown-key refusal. The
 * {@code onnx-minilm} backend type is left out of the built ones: each one built loads its model
 * (seconds, a native session per input).
 */
class ServeConfigFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The file each input is written to; the reader takes a path. */
  private static final Path FILE = temporaryFile();

  /** The whole numbers of the file's top level, each with what the reader made of it. */
  private static final Map<String, Function<ServeConfig, Optional<? extends Number>>> NUMBERS =
      Map.ofEntries(
          Map.entry("port", ServeConfig::port),
          Map.entry("default_joule_ceiling_uj", ServeConfig::defaultJouleCeilingUj),
          Map.entry("max_body_bytes", ServeConfig::maxBodyBytes),
          Map.entry("max_concurrent_serves", ServeConfig::maxConcurrentServes),
          Map.entry("body_deadline_s", ServeConfig::bodyDeadlineSeconds),
          Map.entry("header_deadline_s", ServeConfig::headerDeadlineSeconds),
          Map.entry("write_timeout_s", ServeConfig::writeTimeoutSeconds),
          Map.entry("delivery_timeout_s", ServeConfig::deliveryTimeoutSeconds),
          Map.entry("engine_deadline_s", ServeConfig::engineDeadlineSeconds),
          Map.entry("max_connections", ServeConfig::maxConnections),
          Map.entry("max_buffered_body_bytes", ServeConfig::maxBufferedBodyBytes),
          Map.entry("refused_body_drain_bytes", ServeConfig::refusedBodyDrainBytes),
          Map.entry("refused_body_drain_s", ServeConfig::refusedBodyDrainSeconds));

  /** The keys of the top level, sorted so that an input picks the same key on every run. */
  private static final List<String> KEYS =
      ServeConfig.KEYS.stream().filter(k -> !k.equals("backends")).sorted().toList();

  /** The keys of a backend entry, of every type. */
  private static final List<String> BACKEND_KEYS =
      Stream.concat(
              ServeConfig.BACKEND_KEYS.stream(),
              ServeConfig.BACKEND_TYPE_KEYS.values().stream().flatMap(Set::stream))
          .filter(k -> !k.equals("type") && !k.equals("name"))
          .distinct()
          .sorted()
          .toList();

  /** The backend types built: not onnx-minilm (see the class comment), and one no type is. */
  private static final List<String> TYPES = List.of("reference", "upstream", "jlama", "gpu");

  @FuzzTest(maxDuration = "60s")
  void file(byte[] input) throws IOException {
    Files.write(FILE, input);
    var unused = readOnlyRefusing();
  }

  @FuzzTest(maxDuration = "120s")
  void settings(FuzzedDataProvider data) throws IOException {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    int keys = data.consumeInt(0, 6);
    for (int i = 0; i < keys; i++) {
      if (data.consumeBoolean()) {
        root.set(data.pickValue(KEYS), value(data));
      } else {
        ArrayNode backends = root.withArray("backends");
        ObjectNode b = backends.addObject();
        b.put("type", data.pickValue(TYPES));
        b.put("name", "b" + backends.size());
        int entries = data.consumeInt(0, 4);
        for (int j = 0; j < entries; j++) {
          b.set(data.pickValue(BACKEND_KEYS), value(data));
        }
      }
    }
    Files.write(FILE, JSON.writeValueAsBytes(root));
    Optional<ServeConfig> read = readOnlyRefusing();
    if (read.isEmpty()) {
      return;
    }
    // A whole number taken is the number written, never one wrapped into an int.
    ServeConfig c = read.get();
    for (var number : NUMBERS.entrySet()) {
      Optional<? extends Number> taken = number.getValue().apply(c);
      JsonNode written = root.get(number.getKey());
      if (taken.isPresent() && taken.get().longValue() != written.asLong()) {
        throw new AssertionError(number.getKey() + " " + written + " was read as " + taken.get());
      }
    }
  }

  /** A value of any JSON type, numbers near the edges of int and long most of all. */
  private static JsonNode value(FuzzedDataProvider data) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    return switch (data.consumeInt(0, 7)) {
      case 0 -> f.numberNode(data.consumeInt());
      case 1 -> f.numberNode(data.consumeLong());
      case 2 ->
          f.numberNode(BigInteger.valueOf(data.consumeLong()).shiftLeft(data.consumeInt(0, 70)));
      case 3 -> f.numberNode(data.consumeDouble());
      case 4 -> f.booleanNode(data.consumeBoolean());
      case 5 -> f.nullNode();
      case 6 -> f.objectNode().put(data.consumeString(8), data.consumeInt());
      default -> f.textNode(data.consumeString(40));
    };
  }

  /** The configuration read, or empty when refused as documented; anything else escapes. */
  private static Optional<ServeConfig> readOnlyRefusing() {
    try {
      return Optional.of(ServeConfig.read(FILE));
    } catch (CliException e) {
      return Optional.empty();
    } catch (RuntimeException | Error e) {
      throw new AssertionError("undocumented failure: " + e, e);
    }
  }

  private static Path temporaryFile() {
    try {
      Path file = Files.createTempFile("mesh-fuzz-serve", ".json");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
