"""Closed vocabulary namespaces: the only place term IRIs are written.

Each attribute is an IRI token (``SDO.name`` -> ``<https://schema.org/name>``); an unknown name raises
``AttributeError``, so a typo fails at import or test time instead of emitting an undefined term.
Terms whose local name is not a Python identifier are reached with ``ns["copy-editor"]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PN_LOCAL = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_PN_LOCAL_AT = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")  # fullmatch(iri, start)


class ClosedNamespace:
    """A namespace that knows its terms; ``ns.term`` or ``ns["term"]`` gives the IRI token."""

    def __init__(self, base: str, terms: str) -> None:
        self._base = base
        self._terms = {t: f"<{base}{t}>" for t in terms.split()}
        # plain attributes for the terms that do not clash with the class's own: read without __getattr__
        self.__dict__.update((t, v) for t, v in self._terms.items() if t.isidentifier() and not hasattr(type(self), t))

    @property
    def base(self) -> str:
        return self._base

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._terms[name]
        except KeyError:
            raise AttributeError(f"{self._base}{name} is not a term of this closed namespace") from None

    def __getitem__(self, name: str) -> str:
        try:
            return self._terms[name]
        except KeyError:
            raise KeyError(f"{self._base}{name} is not a term of this closed namespace") from None

    def __contains__(self, name: str) -> bool:
        return name in self._terms

    def terms(self) -> list[str]:
        """Every term's full IRI (for the vocabulary tests)."""
        return [v[1:-1] for v in self._terms.values()]


class OpenNamespace:
    """A namespace of identifiers minted elsewhere (ROR, ORCID, Wikidata, our topics): ``ns[local]`` gives the
    IRI token of any local name. Example:

    >>> ROR["03yrm5c26"]
    '<https://ror.org/03yrm5c26>'
    """

    def __init__(self, base: str) -> None:
        self.base = base

    def __getitem__(self, local: str) -> str:
        return "<" + self.base + local + ">"

    def local(self, iri: str) -> str:
        """The local name of an IRI of this namespace (``https://ror.org/x`` -> ``x``)."""
        return iri[len(self.base):]


RDF = ClosedNamespace("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "type")
RDFS = ClosedNamespace("http://www.w3.org/2000/01/rdf-schema#", "label comment")
OWL = ClosedNamespace("http://www.w3.org/2002/07/owl#", "sameAs")

SDO = ClosedNamespace(
    "https://schema.org/",
    """
    Article Book BookSeries Chapter CreativeWork CreativeWorkSeries Dataset Event Grant MediaObject
    MonetaryAmount MonetaryGrant Organization Periodical Person PropertyValue PublicationIssue
    PublicationVolume Report Review ScholarlyArticle SoftwareApplication Thesis WebPage Role
    DefinedTerm Collection BlogPosting DataCatalog
    name alternateName headline alternativeHeadline abstract author editor translator contributor
    creator publisher sourceOrganization affiliation givenName familyName honorificSuffix
    datePublished dateCreated dateModified startDate endDate sameAs url identifier propertyID value
    isPartOf hasPart issn isbn volumeNumber issueNumber pagination pageStart pageEnd bookEdition
    inLanguage keywords license funder funding fundedItem amount currency sponsor location
    recordedIn workFeatured citation associatedMedia contentUrl encodingFormat inSupportOf
    softwareVersion applicationCategory position description about numberOfPages version subjectOf
    """,
)
FABIO = ClosedNamespace(
    "http://purl.org/spar/fabio/",
    """
    Expression Work JournalArticle ProceedingsPaper BookChapter Book Chapter Preprint Manuscript
    DataFile Dataset ReportDocument Report Thesis ReferenceEntry ReferenceBook Journal JournalVolume
    JournalIssue AcademicProceedings BookSeries Series Database SupplementaryInformationFile
    SpecificationDocument TechnicalStandard Review Letter WebContent ComputerProgram Software
    Entry BookSet WorkingPaper Algorithm
    hasSubtitle hasShortTitle hasTranslatedTitle hasPublicationYear hasURL hasElectronicArticleIdentifier
    hasDepositDate hasCorrectionDate hasDecisionDate dateLastUpdated hasSequenceIdentifier
    hasPlaceOfPublication hasSubjectTerm hasStandardNumber hasIssnL hasArXivId
    """,
)
PRISM = ClosedNamespace(
    "http://prismstandard.org/namespaces/basic/2.0/",
    """
    doi issn eIssn isbn volume issueIdentifier pageRange startingPage endingPage publicationDate
    edition keyword alternateTitle versionIdentifier
    """,
)
CITO = ClosedNamespace("http://purl.org/spar/cito/", "cites isCitedBy Citation hasCitingEntity hasCitedEntity")
BIRO = ClosedNamespace("http://purl.org/spar/biro/", "BibliographicReference ReferenceList references isReferencedBy")
C4O = ClosedNamespace("http://purl.org/spar/c4o/", "hasContent")
FRBR = ClosedNamespace(
    "http://purl.org/vocab/frbr/core#", "realization realizationOf partOf part Endeavour Expression"
)
PRO = ClosedNamespace(
    "http://purl.org/spar/pro/",
    """
    RoleInTime withRole isHeldBy holdsRoleInTime relatesToDocument isDocumentContextFor
    relatesToOrganization author editor translator contributor peer-reviewer
    """,
)
FRAPO = ClosedNamespace(
    "http://purl.org/cerif/frapo/",
    """
    Grant FundingAgency isFundedBy funds isAwardedBy awards hasGrantNumber hasFunderIdentifier
    hasFundingAgency hasORCID hasStartDate hasEndDate hasAcronym hasMonetaryValue hasCurrencyCode
    """,
)
DATACITE = ClosedNamespace(
    "http://purl.org/spar/datacite/",
    "hasIdentifier usesIdentifierScheme Identifier ror isni fundref wikidata orcid doi url other",
)
LITERAL = ClosedNamespace("http://www.essepuntato.it/2010/06/literalreification/", "hasLiteralValue")
DCTERMS = ClosedNamespace(
    "http://purl.org/dc/terms/",
    """
    title abstract language created issued modified dateAccepted dateSubmitted license publisher
    identifier relation subject source isPartOf hasPart creator contributor available description
    """,
)
PROV = ClosedNamespace(
    "http://www.w3.org/ns/prov#",
    "Entity SoftwareAgent wasDerivedFrom wasAttributedTo atLocation value",
)
FOAF = ClosedNamespace("http://xmlns.com/foaf/0.1/", "Person Organization Agent")
SKOS = ClosedNamespace(
    "http://www.w3.org/2004/02/skos/core#",
    "Concept ConceptScheme prefLabel altLabel broader narrower inScheme hasTopConcept topConceptOf definition notation",
)
KG = ClosedNamespace(
    "https://w3id.org/crossref-kg/ontology#",
    """
    SourceFile LicenseStatement Assertion Relation Update ClinicalTrialRegistration
    crossrefType crossrefSubtype position sequence orcidAuthenticated sourcePath sha256 recordLine asWritten
    originalTitle referenceCount citedByCount contentDomain crossmarkRestriction updatePolicy
    contentVersion intendedApplication delayInDays licenseDocument hasLicenseStatement
    hasAssertion assertionName assertionGroup assertionGroupLabel assertionOrder assertionExplanation
    hasRelation relationType relatedIdentifier relatedIdentifierType assertedBy hasUpdate updateType
    updateOf updateDate recordCreated recordDeposited recordIndexed publishedPrint publishedOnline
    postedDate approvedDate contentCreated contentUpdated 
    referenceKey doiAssertedBy citedArticleTitle citedAuthor citedYear citedVolume citedIssue
    citedFirstPage citedJournalTitle citedVolumeTitle citedSeriesTitle citedEdition citedComponent
    citedStandardDesignator citedStandardsBody citedISSN citedISBN citedISSNType citedISBNType
    archive groupTitle partNumber componentNumber clinicalTrialNumber
    trialRegistry trialStage crossrefMember doiPrefix roleName
    hasClinicalTrial freeToReadStart freeToReadEnd reviewType reviewRecommendation reviewRound
    reviewStage reviewRunningNumber reviewCompetingInterest reviewLanguage
    fundingScheme fundingType fundingShare place department
    resolutionMethod resolutionScore matchedText referenceKind referenceStyle parsedTitle parsedAuthor
    ParsedAuthor parsedYear parsedVenue parsedUrl parsedArxivId parsedDoi accessedDate preprintOf
    ToolRecognition ToolCandidate TopicAssignment citesTool suggestsTool hasToolRecognition recognizedTool
    method score hasTopicAssignment topic isPrimary vendor cue strongCue toolCategory vocabularyRole
    tiedWithPrimary toolSource citingWorks citesArtifact hasArtifactRecognition ArtifactRecognition
    recognizedArtifact MachineLearningModel BenchmarkSuite inTopic
    citingInputWorks citesInputWork citesEarlierVersionOf
    """,
)

XSD = ClosedNamespace(
    "http://www.w3.org/2001/XMLSchema#",
    "string integer boolean date gYearMonth gYear dateTime anyURI language decimal double",
)
XSD_STRING = XSD.string  # a plain literal's datatype (``lit`` writes none)
ROR = OpenNamespace("https://ror.org/")
ORCID = OpenNamespace("https://orcid.org/")
WIKIDATA = OpenNamespace("http://www.wikidata.org/entity/")
TOPIC = OpenNamespace("https://w3id.org/crossref-kg/topic/")

PREFIXES: dict[str, str] = {
    "rdf": RDF.base,
    "rdfs": RDFS.base,
    "owl": OWL.base,
    "xsd": XSD.base,
    "schema": SDO.base,
    "fabio": FABIO.base,
    "prism": PRISM.base,
    "cito": CITO.base,
    "biro": BIRO.base,
    "c4o": C4O.base,
    "frbr": FRBR.base,
    "pro": PRO.base,
    "frapo": FRAPO.base,
    "datacite": DATACITE.base,
    "literal": LITERAL.base,
    "dcterms": DCTERMS.base,
    "prov": PROV.base,
    "foaf": FOAF.base,
    "skos": SKOS.base,
    "kg": KG.base,
}

ALL_NAMESPACES = [RDF, RDFS, OWL, SDO, FABIO, PRISM, CITO, BIRO, C4O, FRBR, PRO, FRAPO, DATACITE,
                  LITERAL, DCTERMS, PROV, FOAF, SKOS, KG]


class _Memo(dict[str, str]):
    """A bounded memo whose hits are a plain dict lookup (emptied when it reaches 65,536 entries)."""

    def __init__(self, compute: Callable[[str], str]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, key: str) -> str:
        if len(self) >= 1 << 16:
            self.clear()
        value = self[key] = self.compute(key)
        return value


class Prefixer:
    """Compacts IRIs with the project's prefixes (longest namespace first)."""

    def __init__(self, prefixes: dict[str, str] = PREFIXES) -> None:
        self.prefixes = dict(sorted(prefixes.items()))
        if any(not ns.endswith(("/", "#")) for ns in prefixes.values()):
            raise ValueError("every namespace must end with '/' or '#'")
        self._by_ns = {ns: prefix for prefix, ns in self.prefixes.items()}
        self._terms = _Memo(self._turtle_term)  # token -> Turtle term: predicates and datatypes repeat endlessly
        self.turtle_term: Callable[[str], str] = self._terms.__getitem__

    def curie(self, iri: str) -> str | None:
        # A local name never holds '/' or '#' and every namespace ends with one of them, so the only
        # namespace that can compact an IRI is the IRI up to its last '/' or '#': one dict lookup.
        cut = max(iri.rfind("/"), iri.rfind("#")) + 1
        prefix = self._by_ns.get(iri[:cut]) if cut else None
        if prefix is not None and _PN_LOCAL_AT.fullmatch(iri, cut):
            return f"{prefix}:{iri[cut:]}"
        return None

    def _turtle_term(self, token: str) -> str:
        if token.startswith("<"):
            c = self.curie(token[1:-1])
            return c if c else token
        if token.endswith(">") and "^^<" in token:
            head, dt = token.rsplit("^^", 1)
            c = self.curie(dt[1:-1])
            return f"{head}^^{c}" if c else token
        return token
