package org.meshjava.spring;

import org.meshjava.core.ServingEngine;
import org.meshjava.journal.JournalException;
import org.meshjava.steward.Steward;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.DependsOn;

/**
 * Builds the application's {@link Steward} from {@code mesh.*} ({@link MeshProperties}), with every
 * {@link ServingEngine} bean as a further backend and every {@link StewardBuilderCustomizer} bean
 * applied, and closes it when the context closes (releasing its journal's lock). Backs off when the
 * application defines its own {@code Steward} bean.
 */
@AutoConfiguration
@EnableConfigurationProperties(MeshProperties.class)
public class MeshAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public MeshAutoConfiguration() {}

  /**
   * The steward.
   *
   * @throws IllegalStateException naming the property at fault: {@code mesh.journal} if it cannot
   *     be opened or locked (the {@link JournalException} its cause), and so on
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @DependsOn(SNAPSHOT_FOLDER)
  public Steward meshSteward(
      MeshProperties properties,
      ObjectProvider<ServingEngine> engines,
      ObjectProvider<StewardBuilderCustomizer> customizers,
      ApplicationContext context) {
    return StewardFromProperties.build(
        properties,
        engines.orderedStream().toList(),
        customizers.orderedStream().toList(),
        context.getClassLoader(),
        context.getBean(SNAPSHOT_FOLDER, SnapshotFolderHold.class));
  }

  /** The name of the bean holding the steward's snapshot folder claim. */
  private static final String SNAPSHOT_FOLDER = "meshSnapshotFolder";

  /**
   * Holds the claim on the steward's snapshot folder, let go when the context closes. The steward's
   * bean depends on it, so Spring closes the steward, which saves its last snapshot there, first.
   * Made whether or not the application defines its own steward (a condition here would be judged
   * after {@link #meshSteward} was registered, and so always fail); it then holds nothing.
   */
  @Bean(name = SNAPSHOT_FOLDER, destroyMethod = "close")
  SnapshotFolderHold meshSnapshotFolder() {
    return new SnapshotFolderHold();
  }
}
