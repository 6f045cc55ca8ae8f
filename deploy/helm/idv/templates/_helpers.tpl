{{/* Names and labels. */}}
{{- define "idv.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "idv.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: idv.selector (dict "root" $ "component" "api"). */}}
{{- define "idv.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "idv.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "idv.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "idv.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* One key of the Secret named in values, as an env entry: idv.secretEnv (dict "root" $ "name" "MASTER_KEY" "key" "masterKey" "optional" false). */}}
{{- define "idv.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required "secrets.name: the Secret holding DATABASE_URL, MASTER_KEY… is required" .root.Values.secrets.name }}
      key: {{ index .root.Values.secrets.keys .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end -}}

{{/* The environment every process shares: production, public addresses, the Secret's keys. */}}
{{- define "idv.env" -}}
- name: NODE_ENV
  value: production
- name: HOST
  value: 0.0.0.0
- name: DATA_DIR
  value: /data
- name: BLOB_STORE
  # No shared file system between pods: the images live in PostgreSQL.
  value: postgres
- name: LOG_LEVEL
  value: {{ .Values.config.logLevel | quote }}
- name: TRUST_PROXY
  value: {{ .Values.config.trustProxy | quote }}
- name: API_BASE_URL
  value: {{ .Values.urls.api | quote }}
- name: JOURNEY_URL
  value: {{ .Values.urls.journey | quote }}
- name: CONSOLE_URL
  value: {{ .Values.urls.console | quote }}
- name: DOCS_URL
  value: {{ .Values.urls.docs | quote }}
- name: OIDC_ISSUER
  value: {{ .Values.oidc.issuer | quote }}
- name: OIDC_JWKS_URL
  value: {{ .Values.oidc.jwksUrl | quote }}
- name: OIDC_AUDIENCE
  value: {{ .Values.oidc.audience | quote }}
{{ include "idv.secretEnv" (dict "root" . "name" "DATABASE_URL" "key" "databaseUrl") }}
{{ include "idv.secretEnv" (dict "root" . "name" "MASTER_KEY" "key" "masterKey") }}
{{ include "idv.secretEnv" (dict "root" . "name" "MASTER_KEYS_PREVIOUS" "key" "masterKeysPrevious" "optional" true) }}
{{ include "idv.secretEnv" (dict "root" . "name" "REDIS_URL" "key" "redisUrl" "optional" true) }}
{{- with .Values.config.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Pod-level security: not root, the runtime's default seccomp profile. */}}
{{- define "idv.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
fsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container-level security: read-only root file system, no privilege, no capability. */}}
{{- define "idv.containerSecurityContext" -}}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: [ALL]
{{- end -}}

{{/* The only writable paths: /tmp and DATA_DIR. */}}
{{- define "idv.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: data
  mountPath: /data
{{- end -}}

{{- define "idv.volumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
- name: data
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}
