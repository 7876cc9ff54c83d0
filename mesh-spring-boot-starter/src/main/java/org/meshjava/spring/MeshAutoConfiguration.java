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
   * @throws IllegalStateException naming the property at fault: a {@code mesh.*} key the starter
   *     does not read (a backend entry's key its type does not read included), {@code mesh.journal}
   *     if it cannot be opened or locked (the {@link JournalException} its cause), and so on
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Steward meshSteward(
      MeshProperties properties,
      ObjectProvider<ServingEngine> engines,
      ObjectProvider<StewardBuilderCustomizer> customizers,
      ApplicationContext context,
      ObjectProvider<SnapshotFolderHold> snapshotFolder,
      ObjectProvider<CreatedJournalHold> createdJournal,
      ObjectProvider<UpstreamEnginesHold> upstreams) {
    MeshPropertyKeys.requireKnown(context.getEnvironment());
    return StewardFromProperties.build(
        properties,
        engines.orderedStream().toList(),
        customizers.orderedStream().toList(),
        context.getClassLoader(),
        snapshotFolder.getObject(),
        createdJournal.getObject(),
        upstreams.getObject());
  }

  /**
   * The upstream engines built from {@code mesh.backends}, closed after the steward closes (see
   * {@link UpstreamEnginesHold}).
   */
  @Bean(destroyMethod = "close")
  UpstreamEnginesHold meshUpstreamEngines() {
    return new UpstreamEnginesHold();
  }

  /**
   * The claim on the steward's snapshot folder, let go after the steward closes (see {@link
   * SnapshotFolderHold}); empty where no folder is claimed.
   */
  @Bean(destroyMethod = "close")
  SnapshotFolderHold meshSnapshotFolder() {
    return new SnapshotFolderHold();
  }

  /**
   * The journal file the steward's start created, kept only once the application has started (see
   * {@link CreatedJournalHold}).
   */
  @Bean
  CreatedJournalHold meshCreatedJournal(ApplicationContext context) {
    return new CreatedJournalHold(context);
  }
}
