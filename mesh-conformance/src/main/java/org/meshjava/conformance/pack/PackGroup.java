package org.meshjava.conformance.pack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.meshjava.conformance.pack.internal.JsonUtf8;

/**
 * One group of the pack: the cases that exercise one part of mesh/1, written as one file {@code
 * <name>.json} under the pack directory.
 *
 * @param name the group's name, also the prefix of its case ids
 * @param description what the group exercises, citing the spec
 * @param cases the cases, in order
 */
public record PackGroup(String name, String description, List<PackCase> cases) {
  /** The profile every pack file names. */
  public static final String PROFILE = "mesh/1";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Validates that every case belongs to this group and no id repeats.
   *
   * @throws IllegalArgumentException if a case's id does not start with {@code name/}, or two cases
   *     share an id
   */
  public PackGroup {
    cases = List.copyOf(cases);
    Set<String> ids = new HashSet<>();
    for (PackCase c : cases) {
      if (!c.group().equals(name)) {
        throw new IllegalArgumentException(c.id() + " is not in group " + name);
      }
      if (!ids.add(c.id())) {
        throw new IllegalArgumentException("case id " + c.id() + " repeats");
      }
    }
  }

  /**
   * The file's bytes: pretty-printed JSON with LF line ends and a final LF, whatever the OS. {@link
   * #read} reads them back; {@code conformance/v1/cases} is these bytes, one file per group.
   */
  public byte[] toBytes() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("profile", PROFILE);
    o.put("group", name);
    o.put("description", description);
    o.put("case_count", cases.size());
    var arr = o.putArray("cases");
    cases.forEach(c -> arr.add(c.toJson()));
    DefaultPrettyPrinter printer =
        new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"));
    try {
      return JsonUtf8.bytes(JSON.writer(printer).writeValueAsString(o) + "\n");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Reads a group file, from any file system a {@link Path} names (a pack inside a zip file too).
   *
   * @throws IOException if it cannot be read or is not a pack group
   */
  public static PackGroup read(Path file) throws IOException {
    return read(Files.readAllBytes(file), file.toString());
  }

  /**
   * Reads a group from its file's bytes, wherever they came from (a class path resource, an
   * archive, a network); {@code source} names them in the messages of its refusals, as a file's
   * path does.
   *
   * @throws IOException if the bytes are not a pack group
   */
  public static PackGroup read(byte[] bytes, String source) throws IOException {
    JsonNode o;
    try {
      o = JSON.readTree(bytes);
    } catch (JsonProcessingException e) {
      // Jackson's message names no file and ends in a location whose source it hides.
      var at = e.getLocation();
      String why =
          e.getOriginalMessage().replaceFirst("\\s*\\(?(start marker )?at \\[Source.*", "");
      throw new IOException(
          source
              + " is not JSON"
              + (at == null
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
              + ": "
              + why,
          e);
    }
    if (o == null || !PROFILE.equals(o.path("profile").asText())) {
      throw new IOException(source + " is not a " + PROFILE + " pack group");
    }
    List<PackCase> cases = new ArrayList<>();
    try {
      for (JsonNode c : o.path("cases")) {
        cases.add(PackCase.fromJson(c));
      }
      return new PackGroup(o.path("group").asText(), o.path("description").asText(), cases);
    } catch (IllegalArgumentException e) {
      throw new IOException(source + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads every {@code *.json} group file in {@code dir}, in file-name order.
   *
   * @throws IOException if one cannot be read, or there is none: nothing to run is not a run that
   *     skipped everything
   */
  public static List<PackGroup> readAll(Path dir) throws IOException {
    List<PackGroup> groups = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path f :
          files.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList()) {
        groups.add(read(f));
      }
    }
    if (groups.isEmpty()) {
      throw new IOException(dir + " holds no pack group (no *.json file)");
    }
    return groups;
  }
}
