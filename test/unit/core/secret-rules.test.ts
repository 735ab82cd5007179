import { describe, expect, test } from 'vitest'
import { SECRET_RULES } from '../../../src/core/secret-rules.js'
import { scanSecrets } from '../../../src/core/secrets.js'
import { mulberry32 } from '../../helpers/random.js'

/**
 * Every rule family with positives and negatives generated here: random bodies of the provider's charset and length
 * (a seeded generator, so a failure reproduces), their placeholders and near misses. No value is copied from anywhere.
 */

const random = mulberry32(0x2f6b_1d3a)
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const DIGITS = '0123456789'
const ALNUM = UPPER + LOWER + DIGITS
const HEX = '0123456789abcdef'
const B64 = ALNUM + '+/'
const B64URL = ALNUM + '-_'
/** `n` characters of `chars`, with at least one digit and one letter when the charset has both (as real tokens do). */
function r(chars: string, n: number): string {
  for (;;) {
    let out = ''
    for (let i = 0; i < n; i++) out += chars[Math.floor(random() * chars.length)]
    const hasDigit = /\d/.test(chars) ? /\d/.test(out) : true
    const hasLetter = /[a-z]/i.test(chars) ? /[a-z]/i.test(out) : true
    if (hasDigit && hasLetter && !/(.)\1\1\1/.test(out)) return out
  }
}
const b64 = (s: string) => Buffer.from(s).toString('base64')
const b64url = (s: string) => Buffer.from(s).toString('base64url')
const uuid = () => `${r(HEX, 8)}-${r(HEX, 4)}-4${r(HEX, 3)}-a${r(HEX, 3)}-${r(HEX, 12)}`
const jwt = () =>
  `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${r(DIGITS, 10)}","iat":${r(DIGITS, 10)}}`)}.${r(B64URL, 43)}`
const pem = (label: string) =>
  [`-----BEGIN ${label}-----`, ...Array.from({ length: 5 }, () => r(B64, 64)), `-----END ${label}-----`].join('\n')

interface Family {
  /** The rule id a positive must be reported under. */
  rule: string
  /** Texts that hold one secret of the family. */
  positives: string[]
  /** Texts that hold none: placeholders, near misses (wrong prefix, length, checksum), references. */
  negatives: string[]
}

const inProse = (value: string) => `We found \`${value}\` in the copied configuration.`

const FAMILIES: Family[] = [
  // Cloud providers
  {
    rule: 'aws-access-key-id',
    positives: [inProse(`AKIA${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`)],
    negatives: [inProse('AKIAXXXXXXXXXXXXXXXX'), inProse('AKIAIOSFODNN7EXAMPLE')],
  },
  {
    rule: 'aws-secret-access-key',
    positives: [`aws_secret_access_key = ${r(ALNUM + '/+', 40)}`],
    negatives: [`aws_secret_access_key = ${r(ALNUM, 52)}==`],
  },
  {
    rule: 'aws-session-token',
    positives: [inProse(`IQoJb3JpZ2luX2Vj${r(B64, 200)}`)],
    negatives: [inProse('IQoJb3JpZ2luX2Vj' + 'x'.repeat(200))],
  },
  {
    rule: 'gcp-api-key',
    positives: [inProse(`AIzaSy${r(B64URL, 33)}`)],
    negatives: [inProse('AIzaSy' + 'a'.repeat(33))],
  },
  {
    rule: 'gcp-oauth-client-secret',
    positives: [inProse(`GOCSPX-${r(B64URL, 28)}`)],
    negatives: [inProse('GOCSPX-' + 'x'.repeat(28))],
  },
  {
    rule: 'gcp-oauth-access-token',
    positives: [inProse(`ya29.${r(B64URL, 120)}`)],
    negatives: [inProse('ya29.' + 'x'.repeat(120))],
  },
  {
    rule: 'azure-storage-key',
    positives: [`DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${r(B64, 86)}==;`],
    negatives: ['AccountKey=<your-account-key>'],
  },
  {
    rule: 'azure-sas-token',
    positives: [`https://acme.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig=${r(B64, 44)}%3D`],
    negatives: ['https://acme.blob.core.windows.net/c?sig=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
  },
  {
    rule: 'azure-client-secret',
    positives: [`client_secret=${r(ALNUM, 3)}7Q~${r(ALNUM + '_~.-', 34)}`],
    negatives: ['client_secret=bP88Q~' + 'x'.repeat(34)],
  },
  {
    rule: 'azure-devops-pat',
    positives: [inProse(`${r(ALNUM, 52)}JQQJ99${r(ALNUM, 18)}AZDO${r(ALNUM, 4)}`)],
    negatives: [inProse(`${'x'.repeat(52)}JQQJ99${'x'.repeat(17)}AZDO${'x'.repeat(4)}`)],
  },
  {
    rule: 'cloudflare-token',
    positives: [inProse(`cfut_${r(ALNUM, 40)}${r(HEX, 8)}`)],
    negatives: [inProse(`cfat_${r(ALNUM, 41)}${r(HEX, 8)}`)],
  },
  {
    rule: 'cloudflare-origin-ca-key',
    positives: [`CLOUDFLARE_ORIGIN_CA: v1.0-${r(HEX, 24)}-${r(HEX, 146)}`],
    negatives: [`v1.0-${r(HEX, 24)}-${r(HEX, 140)}`],
  },
  {
    rule: 'digitalocean-token',
    positives: [inProse(`dop_v1_${r(HEX, 64)}`)],
    negatives: [inProse(`dop_v1_${r(HEX, 60)}`)],
  },
  {
    rule: 'heroku-api-key',
    positives: [inProse(`HRKU-${r(B64URL, 60)}`), `HEROKU_API_KEY=${uuid()}`],
    negatives: ['HEROKU_API_KEY=${HEROKU_API_KEY}'],
  },
  {
    rule: 'flyio-token',
    positives: [inProse(`fo1_${r(B64URL, 43)}`), `FLY_API_TOKEN="FlyV1 fm2_${r(B64, 180)}"`],
    negatives: [inProse('fo1_' + 'x'.repeat(43))],
  },
  {
    rule: 'openshift-token',
    positives: [inProse(`sha256~${r(B64URL, 43)}`)],
    negatives: [inProse(`sha256~${r(B64URL, 40)}`)],
  },
  {
    rule: 'vercel-token',
    positives: [inProse(`vcp_${r(ALNUM, 48)}`)],
    negatives: [inProse(`vcx_${r(ALNUM, 48)}`), inProse('vcp_' + 'x'.repeat(48))],
  },
  {
    rule: 'tailscale-key',
    positives: [inProse(`tskey-auth-${r(ALNUM, 12)}-${r(ALNUM, 30)}`)],
    negatives: [inProse(`xtskey-auth-${r(ALNUM, 12)}-${r(ALNUM, 30)}`)],
  },
  { rule: 'supabase-token', positives: [inProse(`sbp_${r(HEX, 40)}`)], negatives: [inProse(`sbp_${r(HEX, 30)}`)] },
  {
    rule: 'planetscale-token',
    positives: [inProse(`pscale_tkn_${r(B64URL, 43)}`)],
    negatives: [inProse('pscale_tkn_' + 'x'.repeat(43))],
  },
  { rule: 'pulumi-token', positives: [inProse(`pul-${r(HEX, 40)}`)], negatives: [inProse(`pul-${r(HEX, 38)}`)] },
  {
    rule: 'terraform-cloud-token',
    positives: [inProse(`${r(ALNUM, 14)}.atlasv1.${r(B64URL, 67)}`)],
    negatives: [inProse(`${'x'.repeat(14)}.atlasv1.${'x'.repeat(67)}`)],
  },
  {
    rule: 'vault-token',
    positives: [inProse(`hvs.${r(B64URL, 90)}`), `VAULT_TOKEN=s.${r(ALNUM, 24)}`],
    negatives: [inProse('hvs.' + 'x'.repeat(90))],
  },
  {
    rule: 'doppler-token',
    positives: [inProse(`dp.pt.${r(ALNUM, 43)}`)],
    negatives: [inProse('dp.pt.' + 'x'.repeat(43))],
  },
  { rule: 'databricks-token', positives: [inProse(`dapi${r(HEX, 32)}`)], negatives: [inProse(`dapi${r(HEX, 30)}`)] },
  {
    rule: 'kubernetes-secret',
    positives: [
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: ${b64(r(ALNUM, 18))}\n`,
    ],
    negatives: [
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: csrf\ndata:\n  csrf: ""\n',
      `apiVersion: v1\nkind: ConfigMap\ndata:\n  blob: ${b64(r(ALNUM, 18))}\n`,
    ],
  },
  {
    rule: 'docker-config-auth',
    positives: [`{"auths": {"registry.example.internal": {"auth": "${b64(`deploy:${r(ALNUM, 20)}`)}"}}}`],
    negatives: [`{"auths": {"registry.example.internal": {"auth": "${b64('deploy:password')}"}}}`],
  },
  // Forges and CI
  {
    rule: 'github-token',
    positives: [inProse(`ghp_${r(ALNUM, 36)}`), inProse(`ghs_${r(DIGITS, 5)}_${jwt()}`)],
    negatives: [inProse('ghp_' + 'x'.repeat(36)), inProse(`ghp_${r(ALNUM, 30)}`)],
  },
  {
    rule: 'github-fine-grained-pat',
    positives: [inProse(`github_pat_${r(ALNUM, 22)}_${r(ALNUM, 59)}`)],
    negatives: [inProse(`github_pat_${'x'.repeat(22)}_${'x'.repeat(59)}`)],
  },
  {
    rule: 'gitlab-token',
    positives: [inProse(`glpat-${r(B64URL, 20)}`)],
    negatives: [inProse('glpat-' + 'X'.repeat(20))],
  },
  {
    rule: 'atlassian-api-token',
    positives: [inProse(`ATATT3${r(B64URL, 186)}`), inProse(`ATBB${r(ALNUM, 32)}`)],
    negatives: [inProse('ATATT3' + 'x'.repeat(186))],
  },
  {
    rule: 'bitbucket-dc-token',
    positives: [inProse(`BBDC-${r(B64, 44)}`)],
    negatives: [inProse(`BBDC-${r(B64, 30)}`)],
  },
  {
    rule: 'sourcegraph-token',
    positives: [inProse(`sgp_${r(HEX, 16)}_${r(HEX, 40)}`), inProse(`sgp_local_${r(HEX, 40)}`)],
    negatives: [inProse(`sgp_${r(HEX, 38)}`)],
  },
  {
    rule: 'octopus-deploy-key',
    positives: [`octopus_api_key = "API-${r(UPPER + DIGITS, 26)}"`],
    negatives: [`octopus_api_key = "API-${r(UPPER + DIGITS, 20)}"`],
  },
  { rule: 'npm-token', positives: [inProse(`npm_${r(ALNUM, 36)}`)], negatives: [inProse(`npm_${r(ALNUM, 30)}`)] },
  {
    rule: 'npmrc-auth',
    positives: [`//registry.example.internal/:_authToken=${r(B64URL, 40)}`],
    negatives: ['//registry.example.internal/:_authToken=${NPM_TOKEN}'],
  },
  {
    rule: 'pypi-token',
    positives: [inProse(`pypi-AgEIcHlwaS5vcmc${r(B64URL, 70)}`)],
    negatives: [inProse('pypi-AgE' + 'x'.repeat(70))],
  },
  {
    rule: 'docker-hub-token',
    positives: [inProse(`dckr_pat_${r(B64URL, 27)}`)],
    negatives: [inProse(`dckr_pat_${'x'.repeat(27)}`)],
  },
  {
    rule: 'sentry-token',
    positives: [
      inProse(`sntryu_${r(HEX, 64)}`),
      inProse(
        `sntrys_${b64('{"iat":1700000000,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"acme"}').replace(/=+$/, '')}_${r(B64, 43)}`,
      ),
    ],
    negatives: [inProse(`sntrys_${r(ALNUM, 120)}`), inProse('sntryu_' + 'a'.repeat(64))],
  },
  {
    rule: 'sentry-dsn',
    positives: [`SENTRY_DSN=https://${r(HEX, 32)}@o${r(DIGITS, 6)}.ingest.sentry.io/${r(DIGITS, 7)}`],
    negatives: ['SENTRY_DSN=https://<key>@o0.ingest.sentry.io/0'],
  },
  {
    rule: 'grafana-token',
    positives: [inProse(`glsa_${r(ALNUM, 32)}_${r(HEX, 8)}`)],
    negatives: [inProse(`glsa_${'X'.repeat(32)}_${'A'.repeat(8)}`)],
  },
  {
    rule: 'new-relic-key',
    positives: [inProse(`NRAK-${r(UPPER + DIGITS, 27)}`), `new_relic_query_key = 'NRIQ-${r(B64URL, 27)}'`],
    negatives: [inProse('NRAK-' + 'X'.repeat(27))],
  },
  {
    rule: 'sumologic-access-id',
    positives: [`SUMO_ACCESS_ID = "su${r(ALNUM, 12)}"`],
    negatives: [`sumObj = su${r(LOWER, 12)}`],
  },
  { rule: 'rootly-key', positives: [inProse(`rootly_${r(HEX, 64)}`)], negatives: [inProse(`rootly_${r(HEX, 60)}`)] },
  { rule: 'spectralops-token', positives: [inProse(`spu-${r(HEX, 32)}`)], negatives: [inProse(`spu-${r(HEX, 28)}`)] },
  {
    rule: 'langsmith-key',
    positives: [inProse(`lsv2_pt_${r(HEX, 32)}_${r(HEX, 10)}`)],
    negatives: [inProse(`lsv2_xx_${r(HEX, 32)}_${r(HEX, 10)}`)],
  },
  { rule: 'ubidots-token', positives: [inProse(`BBFF-${r(ALNUM, 30)}`)], negatives: [inProse(`BBFF-${r(ALNUM, 24)}`)] },
  {
    rule: 'intra42-client-secret',
    positives: [inProse(`s-s4t2ud-${r(HEX, 64)}`)],
    negatives: [inProse(`s-s4t2xx-${r(HEX, 64)}`)],
  },
  // Chat, mail, payments
  {
    rule: 'slack-token',
    positives: [inProse(`xoxb-${r(DIGITS, 12)}-${r(DIGITS, 13)}-${r(ALNUM, 24)}`)],
    negatives: [
      inProse('xoxb-xoxb-my-bot-token'),
      inProse(`xoxp-${r(DIGITS, 12)}-${r(DIGITS, 12)}-${r(DIGITS, 12)}-########`),
      inProse('xoxp-1-RANDOMSTRINGHERE'),
    ],
  },
  {
    rule: 'slack-app-token',
    positives: [inProse(`xapp-1-A${r(UPPER + DIGITS, 10)}-${r(DIGITS, 13)}-${r(HEX, 64)}`)],
    negatives: [inProse(`xapp-1-${'X'.repeat(11)}-${'0'.repeat(13)}-${'x'.repeat(64)}`)],
  },
  {
    rule: 'slack-webhook',
    positives: [`https://hooks.slack.com/services/T${r(UPPER + DIGITS, 8)}/B${r(UPPER + DIGITS, 8)}/${r(ALNUM, 24)}`],
    negatives: ['https://hooks.slack.com/services/TXXXXX/BXXXXX/XXXXXXXXXX'],
  },
  {
    rule: 'discord-bot-token',
    positives: [inProse(`${b64url(r(DIGITS, 18).replace(/^0/, '1'))}.${r(B64URL, 6)}.${r(B64URL, 38)}`)],
    negatives: [inProse(`${b64url('not a user id here')}.${r(B64URL, 6)}.${r(B64URL, 38)}`)],
  },
  {
    rule: 'discord-webhook',
    positives: [`https://discord.com/api/webhooks/${r(DIGITS, 18)}/${r(B64URL, 68)}`],
    negatives: ['https://discord.com/api/webhooks/123/abc'],
  },
  {
    rule: 'telegram-bot-token',
    positives: [inProse(`${r(DIGITS, 10)}:AA${r(B64URL, 33)}`)],
    negatives: [
      `telegram_api_token = "${r(DIGITS, 4)}:A${r(B64URL, 34)}"`,
      `telegram_api_token = "${r(DIGITS, 17)}:A${r(B64URL, 34)}"`,
    ],
  },
  {
    rule: 'teams-webhook',
    positives: [
      `https://acme.webhook.office.com/webhookb2/${uuid()}@${uuid()}/IncomingWebhook/${r(HEX, 32)}/${uuid()}`,
    ],
    negatives: ['https://acme.webhook.office.com/webhookb2/<id>@<tenant>/IncomingWebhook/<x>/<y>'],
  },
  {
    rule: 'stripe-secret-key',
    positives: [inProse(`sk_live_${r(ALNUM, 24)}`), inProse(`rk_prod_${r(ALNUM, 99)}`)],
    negatives: [
      inProse('sk_live_' + 'A'.repeat(23)),
      inProse(`pk_live_${r(ALNUM, 24)}`),
      inProse('sk_test_4eC39HqLyjWDarjtT1zdp7dc'),
    ],
  },
  { rule: 'stripe-webhook-secret', positives: [inProse(`whsec_${r(B64, 32)}`)], negatives: [inProse('whsec_...')] },
  {
    rule: 'square-token',
    positives: [inProse(`sq0atp-${r(B64URL, 22)}`)],
    negatives: [inProse('sq0atp-' + 'x'.repeat(22))],
  },
  {
    rule: 'shopify-token',
    positives: [inProse(`shpat_${r(HEX, 32)}`), inProse(`shpss_${r(ALNUM, 32)}`)],
    negatives: [inProse(`shpat_${r(HEX, 20)}`)],
  },
  {
    rule: 'shippo-token',
    positives: [inProse(`shippo_live_${r(HEX, 40)}`)],
    negatives: [inProse('shippo_live_' + 'x'.repeat(40)), inProse(`shippo_live_${r(HEX, 39)}`)],
  },
  {
    rule: 'flutterwave-key',
    positives: [inProse(`FLWSECK_TEST-${r(HEX, 32)}-X`), inProse(`FLWSECK_TEST-${r(HEX, 12)}`)],
    negatives: [inProse(`FLWSECK_TEST-${r(HEX, 20)}`)],
  },
  {
    rule: 'easypost-api-key',
    positives: [inProse(`EZAK${r(ALNUM, 54)}`), inProse(`EZTK${r(ALNUM, 54)}`)],
    negatives: [inProse(`EZAK${r(ALNUM, 40)}`)],
  },
  {
    rule: 'facebook-page-token',
    positives: [inProse(`EAAM${r(ALNUM, 160)}`)],
    negatives: [inProse(`EAAM${r(ALNUM, 60)}`)],
  },
  {
    rule: 'facebook-access-token',
    positives: [`facebook ${r(DIGITS, 16)}|${r(B64URL, 27)}`],
    negatives: [`facebook ${r(DIGITS, 10)}|${r(B64URL, 27)}`],
  },
  { rule: 'twilio-api-key', positives: [inProse(`SK${r(HEX, 32)}`)], negatives: [inProse(`SK${'0'.repeat(32)}`)] },
  {
    rule: 'twilio-auth-token',
    positives: [`curl -u AC${r(HEX, 32)}:${r(HEX, 32)} https://api.twilio.com`],
    negatives: [`curl -u AC${r(HEX, 32)}:$TWILIO_AUTH_TOKEN https://api.twilio.com`],
  },
  {
    rule: 'sendgrid-api-key',
    positives: [inProse(`SG.${r(B64URL, 22)}.${r(B64URL, 43)}`)],
    negatives: [inProse(`notSG.${r(B64URL, 22)}.${r(B64URL, 43)}`)],
  },
  {
    rule: 'mailgun-api-key',
    positives: [`MAILGUN_API_KEY=key-${r(HEX, 32)}`],
    negatives: [`docs key-${r(HEX, 32)} of a different product`],
  },
  {
    rule: 'postman-api-key',
    positives: [inProse(`PMAK-${r(HEX, 24)}-${r(HEX, 34)}`)],
    negatives: [inProse(`PMAK-${'x'.repeat(24)}-${'x'.repeat(34)}`)],
  },
  {
    rule: 'linear-api-key',
    positives: [inProse(`lin_api_${r(ALNUM, 40)}`)],
    negatives: [inProse(`lin_api_${r(ALNUM, 30)}EXAMPLE`)],
  },
  {
    rule: 'notion-token',
    positives: [inProse(`ntn_${r(DIGITS, 11)}${r(ALNUM, 35)}`)],
    negatives: [inProse('secret_' + 'x'.repeat(43))],
  },
  {
    rule: 'figma-token',
    positives: [inProse(`figd_${r(B64URL, 40)}`)],
    negatives: [inProse('figd_' + 'x'.repeat(40))],
  },
  {
    rule: 'mapbox-secret-token',
    positives: [inProse(`sk.eyJ1${r(B64URL, 60)}.${r(B64URL, 22)}`)],
    negatives: [inProse('sk.eyJ1' + 'x'.repeat(60) + '.' + 'x'.repeat(22))],
  },
  {
    rule: 'adobe-client-secret',
    positives: [`adobeClient := "p8e-${r(HEX, 32)}"`],
    negatives: [`"p8e-${'0'.repeat(32)}"`],
  },
  // AI providers
  {
    rule: 'openai-api-key',
    positives: [
      inProse(`sk-proj-${r(B64URL, 74)}T3BlbkFJ${r(B64URL, 74)}`),
      inProse(`sk-${r(ALNUM, 20)}T3BlbkFJ${r(ALNUM, 20)}`),
    ],
    negatives: [inProse(`sk-proj-${r(B64URL, 160)}`)],
  },
  {
    rule: 'anthropic-api-key',
    positives: [inProse(`sk-ant-api03-${r(B64URL, 93)}AA`)],
    negatives: [inProse('sk-ant-api03-' + 'x'.repeat(95))],
  },
  { rule: 'groq-api-key', positives: [inProse(`gsk_${r(ALNUM, 52)}`)], negatives: [inProse('gsk_' + 'x'.repeat(52))] },
  { rule: 'xai-api-key', positives: [inProse(`xai-${r(ALNUM, 80)}`)], negatives: [inProse('xai-' + 'x'.repeat(80))] },
  {
    rule: 'perplexity-api-key',
    positives: [inProse(`pplx-${r(ALNUM, 48)}`)],
    negatives: [inProse('pplx-' + 'x'.repeat(48))],
  },
  {
    rule: 'replicate-api-token',
    positives: [inProse(`r8_${r(ALNUM, 37)}`)],
    negatives: [inProse('r8_' + 'x'.repeat(37))],
  },
  {
    rule: 'huggingface-token',
    positives: [inProse(`hf_${r(UPPER + LOWER, 34)}`)],
    negatives: [inProse('hf_' + 'x'.repeat(34))],
  },
  // Password managers and keys
  {
    rule: 'onepassword-secret-key',
    positives: [
      inProse(
        `A3-${r(UPPER + DIGITS, 6)}-${r(UPPER + DIGITS, 11)}-${r(UPPER + DIGITS, 5)}-${r(UPPER + DIGITS, 5)}-${r(UPPER + DIGITS, 5)}`,
      ),
    ],
    negatives: [inProse('A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX')],
  },
  {
    rule: 'onepassword-token',
    positives: [inProse(`ops_eyJ${r(B64, 200)}`)],
    negatives: [inProse('ops_eyJ' + 'x'.repeat(200))],
  },
  {
    rule: 'age-secret-key',
    positives: [inProse(`AGE-SECRET-KEY-1${r('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}`)],
    negatives: [
      inProse('AGE-SECRET-KEY-1' + 'X'.repeat(58)),
      inProse(`AGE-SECRET-KEY-1${r('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 57)}`),
    ],
  },
  {
    rule: 'private-key',
    positives: [`the deploy key:\n${pem('OPENSSH PRIVATE KEY')}\n`],
    negatives: [`${pem('PUBLIC KEY')}\n`, '-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----'],
  },
  {
    rule: 'jwt',
    positives: [inProse(jwt()), inProse(b64(jwt()))],
    negatives: [inProse('eyJhbGciOiJIUzI1NiJ9.eyJ4Ijoi.xxxxxxxxxxxxxxxxxxxxxxxxxxxx')],
  },
  {
    rule: 'sidekiq-credentials',
    positives: [`export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=${r(HEX, 8)}:${r(HEX, 8)}`],
    negatives: ['export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=$SIDEKIQ_CREDS'],
  },
  // More prefixed formats
  {
    rule: 'launchdarkly-key',
    positives: [
      inProse(
        `sdk-${r('ghijklmnopqrstuvwxyz' + DIGITS, 8)}-${r(LOWER + DIGITS, 4)}-${r(LOWER + DIGITS, 4)}-${r(LOWER + DIGITS, 4)}-${r(LOWER + DIGITS, 12)}`,
      ),
    ],
    negatives: [inProse(`api-${uuid()}`), inProse(`api-${r(LOWER + DIGITS, 8)}-${r(LOWER + DIGITS, 4)}`)],
  },
  {
    rule: 'aws-appsync-api-key',
    positives: [inProse(`da2-${r(LOWER + DIGITS, 26)}`)],
    negatives: [inProse('da2-' + 'x'.repeat(26)), inProse(`da2-${r(LOWER + DIGITS, 25)}`)],
  },
  {
    rule: 'contentful-token',
    positives: [inProse(`CFPAT-${r(B64URL, 43)}`)],
    negatives: [inProse(`CFPAT-<your-token>`), inProse(`CFPAT-${r(ALNUM, 30)}`)],
  },
  {
    rule: 'typeform-token',
    positives: [inProse(`tfp_${r(ALNUM + '_', 59)}`)],
    negatives: [inProse('tfp_' + 'x'.repeat(59)), inProse(`tfp_${r(ALNUM, 40)}`)],
  },
  {
    rule: 'twitter-bearer-token',
    positives: [`TWITTER_BEARER="${'A'.repeat(22)}${r(ALNUM, 20)}%${r(ALNUM, 70)}"`],
    negatives: [inProse('A'.repeat(112)), inProse('A'.repeat(22) + 'x'.repeat(90))],
  },
  // Stand-ins in a provider's exact shape count; explicit placeholders and wrong lengths do not
  {
    rule: 'stripe-secret-key',
    positives: [inProse('sk_live_' + 'B'.repeat(24))],
    negatives: [
      inProse('sk_live_' + 'B'.repeat(23)),
      inProse('sk_live_' + 'X'.repeat(24)),
      inProse('sk_live_<your-key-here>'),
    ],
  },
  {
    rule: 'tailscale-key',
    positives: [inProse(`tskey-api-${'C'.repeat(12)}-${'D'.repeat(24)}`)],
    negatives: [inProse(`tskey-api-${'x'.repeat(12)}-${'x'.repeat(24)}`)],
  },
  {
    rule: 'slack-token',
    positives: [inProse(`xoxa-2-${'5'.repeat(9)}-${r(DIGITS, 11)}-${r(DIGITS, 13)}-${r(HEX, 18)}`)],
    negatives: [inProse(`xoxa-2-${'5'.repeat(9)}-${r(DIGITS, 11)}-${r(DIGITS, 13)}-xxxxxxxxxxxxxxxxxx`)],
  },
  {
    rule: 'vault-token',
    positives: [inProse('hvb.' + 'q'.repeat(60))],
    negatives: [inProse('hvb.' + 'x'.repeat(60)), inProse('hvb.YOUR_TOKEN_HERE_' + 'q'.repeat(20))],
  },
  // A provider's name beside a value of its exact charset and length
  {
    rule: 'provider-keyword-token',
    positives: [
      `SNYK_TOKEN ?= "${uuid()}"`,
      `ipinfo token = '${r(HEX, 14)}'`,
      `mixpanel ${r(ALNUM, 32)}`,
      `sheets := getsmartsheet("${r(ALNUM, 37)}")`,
      `sonarToken = "${r(UPPER + DIGITS, 40)}"`,
      `const hubspotKey = "12345678-ABCD-ABCD-ABCD-${r(HEX, 12)}"`,
    ],
    negatives: [
      `SNYK_TOKEN ?= "${r(HEX, 32)}"`,
      `ipinfo token = '${r(HEX, 15)}'`,
      'mixpanel dashboards are ready for the quarterly review',
      `SNYK_TOKEN=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`,
      `parsehub token = 'abcdefghijkl'`,
    ],
  },
  // Webhook URLs with the secret in the path
  {
    rule: 'zapier-webhook',
    positives: [`ZAP=https://hooks.zapier.com/hooks/catch/${r(DIGITS, 7)}/${r(LOWER + DIGITS, 8)}/`],
    negatives: ['https://hooks.zapier.com/hooks/catch/xxxxxxx/xxxxxx/', 'see https://zapier.com/help for hooks'],
  },
  {
    rule: 'tines-webhook',
    positives: [`https://${r(LOWER, 8)}.tines.com/webhook/${r(LOWER + DIGITS, 32)}/${r(LOWER + DIGITS, 32)}`],
    negatives: [`https://acme.tines.com/webhook/${r(LOWER + DIGITS, 31)}/`],
  },
  {
    rule: 'power-automate-webhook',
    positives: [
      `https://${r(LOWER + DIGITS, 30)}.62.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/${r(HEX, 32)}/triggers/manual/paths/invoke?api-version=1&sv=1.0&sig=${r(B64URL, 43)}`,
    ],
    negatives: [`https://make.powerplatform.com/environments/${uuid()}/home`],
  },
  // Structural
  {
    rule: 'nuget-config-password',
    positives: [`<add key="ClearTextPassword" value="${r(ALNUM + '!+_', 14)}" />`],
    negatives: [
      '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />',
      '<add key="ClearTextPassword" value="$(FeedPassword)" />',
      '<add key="ClearTextPassword" value="your-password" />',
    ],
  },
  {
    rule: 'hex-private-key',
    positives: [`my wallet private key: 0x${r(HEX + 'ABCDEF', 64)}`],
    negatives: [
      `tx hash of the wallet transfer: 0x${r(HEX, 64)}`,
      `the deploy finished at block 0x${r(HEX, 64)}`,
      `0x${r(HEX, 64)}`,
    ],
  },
  {
    rule: 'url-credentials',
    positives: [
      `postgres://deploy:${r(ALNUM, 16)}@db.internal:5432/app`,
      `mysql://devuser:mySecret${r(DIGITS, 4)}@localhost:3306/dev`,
    ],
    negatives: [
      'postgresql://user:password@localhost/mydb',
      'const SHORT_URL = "https://user:abc@api.com/v1"',
      'amqp://guest:guest@localhost:5672/',
    ],
  },
  {
    rule: 'cli-password',
    positives: [
      `curl --user kevin:'${r(ALNUM, 16)}' -iX PATCH`,
      `curl -u ":${r(ALNUM, 12)}" https://localhost:9200`,
      `mysql -u root -p${r(ALNUM, 14)} app`,
    ],
    negatives: ['curl --user "xxx:yyy"', 'curl -u "${USER}:${PASS}"', 'curl -u username:token'],
  },
  {
    rule: 'authorization-header',
    positives: [`curl -H "Authorization: Bearer ${r(ALNUM, 40)}" https://api.example.com`],
    negatives: ['curl -H "Authorization: Bearer $API_KEY"', 'curl -H "Authorization: Bearer <token>"'],
  },
  {
    rule: 'basic-auth-header',
    positives: [`Authorization: Basic ${b64(`ci:${r(ALNUM, 16)}`)}`],
    negatives: [`Authorization: Basic ${b64('user:password')}`],
  },
  {
    rule: 'generic-assignment',
    positives: [`DB_PASSWORD=${r(ALNUM, 16)}`],
    negatives: ['DB_PASSWORD=${DB_PASSWORD}', 'password: changeme'],
  },
  {
    rule: 'generic-named-token',
    positives: [`cloudmersive: "${r(LOWER + DIGITS, 36)}"`, `mux '${r(ALNUM, 40)}'`],
    negatives: [
      `signature: "${r(ALNUM, 40)}"`,
      `We found ${r(ALNUM, 40)} in the logs.`,
      'chunk main.3f9a2c1b.js became assets/index-BIp3o7tn.js',
    ],
  },
]

describe('every rule family has generated positives and negatives', () => {
  test('every rule of the scanner is covered by a family here', () => {
    const covered = new Set(FAMILIES.map((family) => family.rule))
    const missing = [...new Set(SECRET_RULES.map((rule) => rule.id))].filter((id) => !covered.has(id))
    expect(missing).toEqual([])
  })

  describe.each(FAMILIES.map((family) => [family.rule, family] as const))('%s', (rule, family) => {
    test.each(family.positives.map((text) => [text.slice(0, 60), text]))('finds %s…', (_, text) => {
      expect(scanSecrets(text).map((finding) => finding.rule)).toContain(rule)
    })
    test.each(family.negatives.map((text) => [text.slice(0, 60), text]))('passes %s…', (_, text) => {
      expect(scanSecrets(text).map((finding) => finding.rule)).not.toContain(rule)
    })
  })
})

/** The assignment and call forms of the languages notes quote; `V` is where the value goes. */
const ASSIGNMENT_FORMS: readonly string[] = [
  'export API_TOKEN=V',
  'API_TOKEN="V"',
  'api_token: V',
  '"apiToken": "V"',
  "api_token => 'V'",
  'apiToken := "V"',
  'API_TOKEN ?= "V"',
  'API_TOKEN ::= "V"',
  'API_TOKEN :::= "V"',
  'API_TOKEN += "V"',
  '$apiToken .= "V"',
  'apiToken ||= "V"',
  'var discordToken string = "V"',
  'String sonarToken = "V";',
  'let token: string = "V"',
  'System.setProperty("API_TOKEN", "V")',
  'req.Header.Set("X-Api-Key", "V")',
  'os.GetEnvOrDefault("api_token", "V")',
  "nethunt token - 'V'",
  'if apiKey != "V" { return }',
  '<password>V</password>',
  '--api-token V',
  'https://api.example.com/v1/items?key=V&page=2',
  'Using Key=V',
  'The staging password is V now.',
  'our API key was V until Tuesday',
]

describe('assignment forms', () => {
  test.each(ASSIGNMENT_FORMS.map((form) => [form]))('%s', (form) => {
    const value = r(ALNUM, 28)
    const text = form.replace('V', value)
    const findings = scanSecrets(text)
    expect(
      findings.some((finding) => text.slice(finding.start, finding.end) === value),
      JSON.stringify(findings),
    ).toBe(true)
  })

  test.each([
    ['a comparison with a variable', 'if apiKey != expected { return }'],
    ['a dotted package name', 'notes = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2"'],
    ['a code reference', 'KeyPair = X25519.KeyPair'],
    ['an identifier', "schemaKey = 'DOC_Vector_5_32'"],
    ['a cache key', 'Cache restored from key: Linux-node-' + r(HEX, 64)],
    ['base64 of filler words', `ANY_KEY = ${b64('dummy text data data data')}`],
    ['a name that says the value is not real', `nonMatchingToken := "${r(LOWER + DIGITS, 16)}"`],
    ['a type followed by a value', 'token: string'],
    ['prose about a token', 'The token is valid for 3600 seconds and the password is at least 12 characters.'],
    ['a JWT header alone', `the token was ${b64url('{"alg":"HS256","typ":"JWT"}')} but`],
  ])('%s is not a secret', (_, text) => {
    expect(scanSecrets(text)).toEqual([])
  })
})

describe('generic assignments: plural names, numeric passwords', () => {
  // A value found under a singular name is found under its plural (the assignment rule's: symbols keep the random-run
  // rule out of it).
  test.each([
    ['passwords: V'],
    ['secrets = "V"'],
    ['api_keys: V'],
    ['clientSecrets: "V"'],
    ['DB_PASSWORDS=V'],
    ['"accessTokens": "V"'],
  ])('%s', (form) => {
    const value = `${r(ALNUM, 9)}!#${r(ALNUM, 9)}`
    const text = form.replace('V', value)
    const singular = form.replace(/s\b/, '').replace('V', value)
    for (const t of [singular, text])
      expect(
        scanSecrets(t).map((finding) => `${finding.rule} ${t.slice(finding.start, finding.end)}`),
        t,
      ).toEqual([`generic-assignment ${value}`])
  })

  // A password of digits (and symbols) where the name ends in a password word.
  test.each([
    ['password: 84729163', '84729163'],
    ['DB_PASSWORD=93817264', '93817264'],
    ['"password": 61940287,', '61940287'],
    ["mysql_root_password: '50371948'", '50371948'],
    ['passcode: 849302', '849302'],
    ['passwords: 73920518', '73920518'],
    ['The router password is 40918273.', '40918273'],
    ['password: 8472-9163!', '8472-9163!'],
  ])('%s', (text, value) => {
    expect(scanSecrets(text).map((finding) => text.slice(finding.start, finding.end))).toEqual([value])
  })

  test.each([
    ['a minimum length', 'password_min_length: 12'],
    ['an empty list', 'passwords: []'],
    ['an empty map', 'secrets: {}'],
    ['a timeout', 'timeout: 30'],
    ['a count of passwords', 'passwords = 5'],
    ['a count of keys', 'keys: 42'],
    ['LLM token counts', 'tokens: 4096\nmax_tokens: 4096\napi_tokens: 128000'],
    ['a duration under a password name', 'password_rotation_seconds: 7776000'],
    ['a short PIN or a year', 'password: 2024\npin: 8472'],
    ['a run of one digit', 'password: 11111111'],
    ['a sequence', 'password: 123456\nDB_PASSWORD=987654321'],
    ['digit pairs', 'password: 112233'],
    ['a keypad column', 'password: 147258369'],
    ['a decimal and a version', 'password: 3.14159265\npassword: 1.22.3'],
    ['a reusable workflow', 'secrets: inherit'],
    ['paths of keys', 'ssh_keys: ~/.ssh/id_ed25519'],
    ['a hash of passwords', 'password_hashes: 84729163'],
    ['a secret of digits (not a password: 16 digits or more for a token)', 'secret: 847291635512'],
  ])('%s is not a secret', (_, text) => {
    expect(scanSecrets(text)).toEqual([])
  })
})

describe('hostile input to the new readers finishes', () => {
  const mb = 1024 * 1024
  test.each([
    ['runs of token characters broken by dashes', 'a-'.repeat(mb / 2)],
    ['one token-character run of a megabyte', 'aB3'.repeat(mb / 3)],
    ['names before separators', 'mux: '.repeat(mb / 5)],
    ['typed declarations without a value', 'var token string '.repeat(mb / 17)],
    ['compare operators', 'key != '.repeat(mb / 7)],
    ['Kubernetes Secret documents', 'kind: Secret\ndata:\n  a: b\n'.repeat(mb / 26)],
    ['an identifier-like run', 'Ab1'.repeat(mb / 3) + '!'],
    ['session-like prose', 'session '.repeat(mb / 8)],
    ['a password word repeated', 'password'.repeat(mb / 8)],
    ['password assignments without a value', 'passwords: '.repeat(mb / 11)],
    ['numeric passwords', 'passwords: 84729163\n'.repeat(mb / 20)],
    ['one number after a password name', 'password=' + '8'.repeat(mb)],
  ])('%s', (_, text) => {
    expect(Array.isArray(scanSecrets(text))).toBe(true)
  })
})
