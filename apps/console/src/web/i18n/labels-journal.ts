import { CASE_JOURNAL_ACTIONS, type CaseJournalAction } from '../domain.ts';
import type { Locale } from './locale.ts';

/**
 * Case journal actions in plain words. English comes from the domain's catalogue; French is here,
 * typed over the same list so that an action added there fails the typecheck until it has its
 * words. An action neither knows is shown as itself.
 */
const JOURNAL_FR: Record<CaseJournalAction, string> = {
  'case.created': 'Dossier créé',
  'case.consulted': 'Dossier consulté',
  'case.decided': 'Dossier décidé',
  'case.decision_revised': 'Décision révisée',
  'case.resubmission_requested': 'Nouvel envoi demandé',
  'checks.completed': 'Contrôles automatiques terminés',
  'session.created': 'Lien du parcours créé',
  'handoff.created': 'Code de passage au téléphone créé',
  'handoff.opened': 'Code de passage au téléphone ouvert',
  'journey.started': 'Parcours commencé',
  'journey.round_started': 'Nouveau tour du parcours commencé',
  'journey.consent_given': 'Consentement donné',
  'journey.declined': 'Consentement refusé',
  'journey.applicant_entered': 'Identité saisie par la personne',
  'journey.questionnaire_answered': 'Questionnaire rempli',
  'journey.document_chosen': 'Type de document choisi',
  'journey.piece_received': 'Image reçue',
  'journey.face_challenge_issued': 'Défi du visage émis',
  'journey.sequence_received': 'Séquence en direct reçue',
  'journey.wallet_requested': 'Présentation du portefeuille demandée',
  'journey.wallet_presented': 'Présentation du portefeuille acceptée',
  'journey.wallet_refused': 'Présentation du portefeuille refusée',
  'journey.submitted': 'Parcours envoyé',
  'review.opened': 'Envoyé en révision',
  'review.claimed': 'Tâche de révision prise',
  'review.correction_added': 'Correction ajoutée',
  'review.decision_recorded': 'Décision de révision enregistrée',
  'review.revision_recorded': 'Révision de décision enregistrée',
  'review.checks_overridden': 'Approuvé malgré des contrôles en échec ou à vérifier (justifié)',
  'personal_data.consulted': 'Données personnelles consultées',
  'personal_data.unmasked': 'Données personnelles révélées',
  'personal_data.erased': 'Données personnelles effacées',
  'piece.downloaded': 'Image téléchargée',
  'retention.images_deleted': 'Images supprimées en fin de conservation',
  'support_access.granted': 'Accès du support accordé',
  'support_access.revoked': 'Accès du support retiré',
};

/** A journal action in plain words; the action itself when unknown (the journal shows it on hover either way). */
export function journalActionWords(action: string, locale: Locale): string {
  if (!Object.hasOwn(CASE_JOURNAL_ACTIONS, action)) return action;
  const a = action as CaseJournalAction;
  return locale === 'fr' ? JOURNAL_FR[a] : CASE_JOURNAL_ACTIONS[a];
}

/** The journal's actor `person`: the one verifying their identity, through the journey. */
export function personActorWords(locale: Locale): string {
  return locale === 'fr' ? 'La personne (parcours)' : 'The person (journey)';
}
