{{/* Name of the chart, overridable with nameOverride. */}}
{{- define "agent-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name: the release name when it already contains the chart name, else release-chart,
cut to 63 characters because that is the limit of a Kubernetes name label.
*/}}
{{- define "agent-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "agent-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels: stable across upgrades, because a Deployment's selector is immutable. */}}
{{- define "agent-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "agent-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Standard labels on every object. */}}
{{- define "agent-operator.labels" -}}
helm.sh/chart: {{ include "agent-operator.chart" . }}
{{ include "agent-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: agent-operator
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "agent-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "agent-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image reference: a digest pins it, else the tag (defaulting to appVersion). */}}
{{- define "agent-operator.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/* Leader election is forced on with more than one replica: two leaders would both write. */}}
{{- define "agent-operator.leaderElect" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicaCount) 1) }}true{{- end }}
{{- end }}

{{/* Where the API key file is mounted. */}}
{{- define "agent-operator.apiKeyDir" -}}
/var/run/secrets/agentplatform.io/control-plane
{{- end }}

{{/*
The rules the operator needs on the resources it watches; shared by the ClusterRole and the
per-namespace Roles so that the two modes cannot drift apart.
*/}}
{{- /*
Exactly the permissions of WATCH_PERMISSIONS in src/operator/rbac.ts (a test renders the
chart and compares): informers read with list+watch, referenced Secrets' values by get,
writes are merge patches.
*/ -}}
{{- define "agent-operator.watchRules" -}}
- apiGroups: ["agentplatform.io"]
  resources: ["agentdeployments"]
  verbs: ["list", "watch", "patch"]
- apiGroups: ["agentplatform.io"]
  resources: ["agentdeployments/status"]
  verbs: ["patch"]
- apiGroups: ["agentplatform.io"]
  resources: ["agentdeployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["agentplatform.io"]
  resources: ["platformconnections"]
  verbs: ["list", "watch", "patch"]
- apiGroups: ["agentplatform.io"]
  resources: ["platformconnections/status"]
  verbs: ["patch"]
- apiGroups: ["agentplatform.io"]
  resources: ["tracedeletions"]
  verbs: ["list", "watch"]
- apiGroups: ["agentplatform.io"]
  resources: ["tracedeletions/status"]
  verbs: ["patch"]
- apiGroups: ["agentplatform.io"]
  resources: ["exampledeletions"]
  verbs: ["list", "watch"]
- apiGroups: ["agentplatform.io"]
  resources: ["exampledeletions/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{- /*
The runbook of an alert: prometheusRule.runbookUrl with {alert} replaced by the alert's name.
Called as (list $ "AlertName").
*/ -}}
{{- define "agent-operator.runbookUrl" -}}
{{- $root := index . 0 -}}
{{- replace "{alert}" (index . 1) $root.Values.prometheusRule.runbookUrl | quote -}}
{{- end }}
