package org.meshjava.spring;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Refuses a {@code mesh.*} key that {@link MeshProperties} does not read, as {@code mesh serve
 * --config} refuses an unknown key (SPEC.md, "{@code mesh serve} configuration"). Spring's binding
 * drops such a key without a word, so a typo ({@code mesh.journall}, {@code uj-pertoken}) would
 * start the steward on the default the key was written to replace.
 *
 * <p>A backend entry is held to the keys of its own type: a key only another type reads ({@code
 * base-url} on a reference entry) would be ignored just the same. Spring's {@code
 * ignoreUnknownFields = false} is not used because it cannot tell the types apart and its message
 * names no key that would have been read.
 *
 * <p>Only property sources whose names can be listed are checked (application files, the command
 * line, system properties); a key from a source that only answers lookups is not seen. Environment
 * variables are not checked: their names belong to the whole machine, not to this application (a
 * Kubernetes service named {@code mesh} gives every pod {@code MESH_PORT} and {@code
 * MESH_SERVICE_HOST}), so a {@code MESH_} variable is no evidence of a typo.
 */
final class MeshPropertyKeys {
  private static final ConfigurationPropertyName MESH = ConfigurationPropertyName.of("mesh");

  /**
   * The top-level keys, and for the groups among them, the keys each takes: the components of the
   * records Spring binds, as it names them in a file (kebab case), so that a setting added to a
   * record is known here without being listed twice.
   */
  private static final Set<String> TOP = keysOf(MeshProperties.class);

  private static final Set<String> SNAPSHOTS = keysOf(MeshProperties.Snapshots.class);

  /** The keys each backend type takes beside {@link #BACKEND}, as {@code mesh serve}'s do. */
  private static final Map<MeshProperties.BackendType, Set<String>> BACKEND_TYPE =
      Map.of(
          MeshProperties.BackendType.REFERENCE,
          Set.of("work-per-token", "max-concurrent-serves", "max-waiting-serves"),
          MeshProperties.BackendType.UPSTREAM,
          Set.of(
              "base-url",
              "model",
              "api-key-env",
              "deterministic",
              "timeout-s",
              "max-concurrent-serves"));

  /**
   * The keys every backend entry takes, whatever its type: an entry's components less those only
   * some types read ({@link #BACKEND_TYPE}).
   */
  private static final Set<String> BACKEND = shared();

  private MeshPropertyKeys() {}

  /**
   * Checks every {@code mesh.*} name {@code environment} lists against the keys the starter reads.
   *
   * @throws IllegalStateException naming the first unknown key, where it is, and the keys known
   *     there
   */
  static void requireKnown(Environment environment) {
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (source instanceof IterableConfigurationPropertySource iterable
          && !(source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource)) {
        List<ConfigurationPropertyName> names =
            iterable.stream().filter(MESH::isAncestorOf).toList();
        // A list is bound from one source whole (a profile's file replaces the base file's list),
        // so an entry's type is the one its own source gives, not the bound entry's at its index.
        Map<Integer, String> types = new HashMap<>();
        for (ConfigurationPropertyName name : names) {
          if (isEntryKey(name) && name.getElement(3, Form.UNIFORM).equals("type")) {
            ConfigurationProperty type = source.getConfigurationProperty(name);
            if (type != null && type.getValue() != null) {
              // As the binder reads it: a placeholder (type: ${BACKEND_TYPE:upstream}) resolved.
              types.put(
                  index(name), environment.resolvePlaceholders(String.valueOf(type.getValue())));
            }
          }
        }
        for (ConfigurationPropertyName name : names) {
          requireKnown(name, types);
        }
      }
    }
  }

  private static void requireKnown(ConfigurationPropertyName name, Map<Integer, String> types) {
    String top = name.getElement(1, Form.ORIGINAL);
    if (!known(TOP, name, 1)) {
      throw unknown("mesh", top, "", TOP);
    }
    // Compared as Spring binds a name, ignoring case and dashes: mesh.snap-shots is mesh.snapshots.
    String key = name.getElement(1, Form.UNIFORM);
    if (key.equals("snapshots")) {
      if (name.getNumberOfElements() > 3
          || (name.getNumberOfElements() == 3 && !known(SNAPSHOTS, name, 2))) {
        throw unknown("mesh.snapshots", name.getElement(2, Form.ORIGINAL), "", SNAPSHOTS);
      }
    } else if (key.equals("backends")) {
      backendKey(name, types);
    } else if (name.getNumberOfElements() > 2) {
      throw new IllegalStateException(
          "mesh." + top + " is a single value, and " + name + " sets a key under it");
    }
  }

  /** Whether {@code name} is a key of one {@code mesh.backends} entry ({@code [i].key}). */
  private static boolean isEntryKey(ConfigurationPropertyName name) {
    return name.getNumberOfElements() >= 4 && name.isNumericIndex(2);
  }

  private static int index(ConfigurationPropertyName name) {
    return Integer.parseInt(name.getElement(2, Form.ORIGINAL));
  }

  private static void backendKey(ConfigurationPropertyName name, Map<Integer, String> types) {
    if (name.getNumberOfElements() < 3) {
      return;
    }
    if (!name.isNumericIndex(2)) {
      throw new IllegalStateException(
          name
              + ": mesh.backends is a list, and '"
              + name.getElement(2, Form.ORIGINAL)
              + "' is not an entry's index (write each entry as a list item, \"- name: ...\")");
    }
    if (!isEntryKey(name)) {
      return; // Spring's binding refuses a value for a whole entry.
    }
    int index = index(name);
    Optional<MeshProperties.BackendType> type = type(types.getOrDefault(index, "reference"));
    if (type.isEmpty()) {
      return; // Spring's binding names a type it does not know, in the list it binds.
    }
    TreeSet<String> keys = new TreeSet<>(BACKEND);
    keys.addAll(BACKEND_TYPE.get(type.get()));
    if (!known(keys, name, 3) || name.getNumberOfElements() > 4) {
      throw unknown(
          "mesh.backends[" + index + "]",
          name.getElement(3, Form.ORIGINAL),
          " for type '" + type.get().name().toLowerCase(java.util.Locale.ROOT) + "'",
          keys);
    }
  }

  /** The type {@code text} names, compared as leniently as Spring binds an enum. */
  private static Optional<MeshProperties.BackendType> type(String text) {
    String canonical = text.replaceAll("[^A-Za-z0-9]", "").toLowerCase(java.util.Locale.ROOT);
    return Arrays.stream(MeshProperties.BackendType.values())
        .filter(t -> t.name().replace("_", "").toLowerCase(java.util.Locale.ROOT).equals(canonical))
        .findFirst();
  }

  /** Whether element {@code i} of {@code name} is one of {@code keys}, in any relaxed form. */
  private static boolean known(Set<String> keys, ConfigurationPropertyName name, int i) {
    String uniform = name.getElement(i, Form.UNIFORM);
    return keys.stream().anyMatch(k -> k.replace("-", "").equals(uniform));
  }

  private static IllegalStateException unknown(
      String where, String key, String forType, Set<String> known) {
    return new IllegalStateException(
        where
            + ": unknown key '"
            + key
            + "'"
            + forType
            + "; known: "
            + new TreeSet<>(known)
            + " (a misspelt key would leave its setting at the default)");
  }

  /** The components of {@code record} as Spring names them in a file: kebab case. */
  private static Set<String> keysOf(Class<? extends Record> record) {
    Set<String> keys = new TreeSet<>();
    for (java.lang.reflect.RecordComponent c : record.getRecordComponents()) {
      keys.add(c.getName().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT));
    }
    return Set.copyOf(keys);
  }

  private static Set<String> shared() {
    Set<String> keys = new TreeSet<>(keysOf(MeshProperties.Backend.class));
    BACKEND_TYPE.values().forEach(keys::removeAll);
    return Set.copyOf(keys);
  }
}
