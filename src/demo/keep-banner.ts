// The lines `demo --keep` prints once everything is Ready: the handful of commands a newcomer
// wants next, each ready to paste.
export interface KeepBannerContext {
  kubeconfig: string;
  namespace: string;
  /** An AgentDeployment of the examples, to describe and edit. */
  name: string;
  /** The manifest of that example, to edit and re-apply. */
  exampleFile: string;
  controlPlaneUrl: string;
  apiKeyHint: string;
  /** The embedded control-plane emulator's admin token; absent with a real control plane. */
  adminToken: string | undefined;
  metricsUrl: string | undefined;
  logPath: string | undefined;
}

export function keepBanner(context: KeepBannerContext): string[] {
  const kubectl = `kubectl --kubeconfig ${context.kubeconfig}`;
  const object = `-n ${context.namespace} agd/${context.name}`;
  return [
    '  watch every AgentDeployment:',
    `    ${kubectl} get agd -A -w`,
    '  conditions, ids and events of one:',
    `    ${kubectl} describe ${object}`,
    '  wait until all are Ready (what a pipeline does):',
    `    ${kubectl} wait agd --all -n ${context.namespace} --for=condition=Ready --timeout=2m`,
    `  roll out a change: edit sourceRevisionConfig.imageUri in ${context.exampleFile}, then`,
    `    ${kubectl} apply -f ${context.exampleFile}    # and watch it with get -w`,
    '  talk to the deployed agent (the emulated runtime answers with the revision it runs):',
    `    AGENT_OPERATOR_API_KEY=${context.apiKeyHint} node dist/cli.js invoke --control-plane-url ${context.controlPlaneUrl} --kubeconfig ${context.kubeconfig} -n ${context.namespace} ${context.name} "hello"`,
    "  the operator's metrics:",
    `    curl -s ${context.metricsUrl ?? '-'}/metrics | grep '^agent_operator_'`,
    `  control plane: ${context.controlPlaneUrl} (API key "${context.apiKeyHint}")`,
    ...(context.adminToken === undefined
      ? []
      : [
          `  admin API:     ${context.controlPlaneUrl}/_emulator/ (Authorization: Bearer ${context.adminToken})`,
        ]),
    `  operator log:  ${context.logPath ?? '-'}`,
  ];
}
